package org.vnpu.core.engine;

/** Why a node cannot take a pod; in the order the engine checks them. */
public enum RejectKind {
  STALE_HEARTBEAT,
  LOCKED,
  MODE_MISMATCH,
  NOT_ENOUGH_HOST_CPU,
  NOT_ENOUGH_HOST_MEMORY,
  CHIP_TYPE_NOT_FOUND,
  DIE_ID_NOT_FOUND,
  UNHEALTHY,
  NO_TEMPLATE_FITS,
  NO_IDLE_CHIP,
  SHARES_EXHAUSTED,
  NOT_ENOUGH_MEMORY,
  NOT_ENOUGH_CORES,
  NOT_ENOUGH_CHIPS
}

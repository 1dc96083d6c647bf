package org.vnpu.api;

/**
 * The names of what a vNPU DRA device says of itself in the driver's ResourceSlices: written by the
 * DRA driver ({@code ResourceSlices}), read by the scheduler ({@code DraLedger}) and by users' CEL
 * selectors ({@code device.attributes["<driver>"].type == "910B3"}, {@code
 * device.capacity["<driver>"].aiCore}). Attributes and capacities are C identifiers.
 */
public final class DraDeviceAttributes {

  /** The chip type, e.g. {@code 910B3} (string). */
  public static final String TYPE = "type";

  /** The chip's die ID (string). */
  public static final String DIE_ID = "dieID";

  /** The chip's index on the node (int). */
  public static final String INDEX = "index";

  /** The chip's NUMA node, -1 when unknown (int). */
  public static final String NUMA_NODE = "numaNode";

  /** The chips of one group share a fast interconnect (string). */
  public static final String INTERCONNECT_GROUP = "interconnectGroup";

  /** How the chip is shared: {@code soft} (string). */
  public static final String SPLIT_MODE = "splitMode";

  /** The chip's AI Cores (int). */
  public static final String AI_CORES = "aiCores";

  /** Whether the device is the whole chip (bool). */
  public static final String WHOLE_CARD = "wholeCard";

  /** Capacity: AI Core percent of the chip. */
  public static final String AI_CORE_CAPACITY = "aiCore";

  /** Capacity: device memory. */
  public static final String MEMORY_CAPACITY = "memory";

  private DraDeviceAttributes() {}
}

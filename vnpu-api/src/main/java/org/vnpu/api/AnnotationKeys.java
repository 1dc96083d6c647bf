package org.vnpu.api;

/**
 * Every annotation key vNPU reads or writes. User-facing pod annotations come first; the internal
 * keys carry versioned JSON ({@code {"v":1,...}}) decoded by {@link
 * org.vnpu.api.codec.PayloadCodec}. Each internal key has one writer per phase.
 */
public final class AnnotationKeys {

  // ---- Pod annotations set by the user (all optional) ----

  /**
   * Split mode the pod wants. Written by: the user. Read by: scheduler. Value: {@code soft}
   * (default) or {@code hard}; the pod only lands on nodes of that mode.
   */
  public static final String MODE = "huawei.com/vnpu-mode";

  /**
   * AI CPU level for hard-mode templates. Written by: the user. Read by: scheduler. Value: {@code
   * low} (default: templates with fewer AI CPUs, so more instances fit) or {@code high}.
   */
  public static final String HARD_AICPU_LEVEL = "huawei.com/vnpu-hard-aicpu-level";

  /**
   * AI Core policy of a soft-mode share. Written by: the user. Read by: scheduler, which copies it
   * into the allocation for the shim. Value: {@code fixed-share}, {@code elastic} (default) or
   * {@code best-effort}.
   */
  public static final String AICORE_POLICY = "huawei.com/vnpu-aicore-policy";

  /**
   * How the scheduler chooses among nodes. Written by: the user. Read by: scheduler. Value: a
   * placement policy name: {@code fragmentation-aware} (default), {@code binpack} or {@code
   * spread}.
   */
  public static final String NODE_SCHEDULER_POLICY = "huawei.com/vnpu-pod-node-scheduler-policy";

  /**
   * How the scheduler chooses among the chips of a node. Written by: the user. Read by: scheduler.
   * Value: a placement policy name: {@code fragmentation-aware} (default), {@code binpack} or
   * {@code spread}.
   */
  public static final String DEVICE_SCHEDULER_POLICY =
      "huawei.com/vnpu-pod-device-scheduler-policy";

  /**
   * Pins every vNPU of the pod to the chip with this die ID. Written by: the user. Read by:
   * scheduler. Value: a die ID as published in the node inventory.
   */
  public static final String USE_NPU_DIE_ID = "huawei.com/vnpu-use-npu-dieID";

  /**
   * Pins every vNPU of the pod to chips of these types. Written by: the user. Read by: scheduler.
   * Value: a chip type of the catalog, bare ({@code 310P3}) or as openFuyao writes it ({@code
   * NPU-ASCEND-310P3}), or several separated by commas ({@code 910B3,910B4}).
   */
  public static final String USE_NPU_TYPE = "huawei.com/vnpu-use-npu-type";

  /**
   * The pod's priority on shared chips (docs/colocation.md). Written by: the user. Read by:
   * scheduler, which signs it into the allocation for the shim. Value: {@code online} or {@code
   * offline}; by default offline when the pod's {@code spec.priority} is below the scheduler's
   * {@code --online-priority-threshold} (0), else online.
   */
  public static final String PRIORITY = "huawei.com/vnpu-priority";

  /**
   * The most kernels an offline pod may have queued per stream; an online container waits for at
   * most these. Written by: the user. Read by: scheduler, as {@link #PRIORITY}. Value: 0 (no cap)
   * to 16; default 1. Only for offline pods.
   */
  public static final String OFFLINE_MAX_KERNELS_IN_FLIGHT =
      "huawei.com/vnpu-offline-max-kernels-in-flight";

  // ---- Node annotations ----

  /**
   * The node's NPU inventory. Written by: device plugin. Read by: scheduler, exporter. Value:
   * {@link org.vnpu.api.payload.NodeRegistration} as JSON v1, or openFuyao's legacy delimited
   * format {@code index,dieID,count,memMB,type,health,numa:} per chip (read only).
   */
  public static final String NODE_REGISTER = "huawei.com/node-vnpu-register";

  /**
   * Liveness of the node's device plugin. Written by: device plugin (state {@code reported}),
   * scheduler (state {@code requested} when it finds the heartbeat stale). Read by: both. Value:
   * {@link org.vnpu.api.payload.NodeHandshake} as JSON v1. A node whose last report is older than
   * the tolerance is not schedulable.
   */
  public static final String NODE_HANDSHAKE = "huawei.com/node-vnpu-handshake";

  // ---- Annotations of a node's lock Lease ----

  /**
   * The pods reserved on a node whose vNPUs the device plugin has not yet handed out. An annotation
   * of the node's lock Lease (named after the node, in namespace {@code vnpu-node-locks}), not of
   * the Node (ADR 0032). Written by: scheduler (adds a pod), device plugin (counts hand-outs,
   * removes a pod after its last container). Read by: both. Value: {@link
   * org.vnpu.api.payload.NodeLockSet} as JSON v1; each entry expires at its {@code expiresAt}.
   */
  public static final String NODE_LOCK = "huawei.com/vnpu-node-lock";

  // ---- Pod annotations written by vNPU ----

  /**
   * The pod's allocation: per container, per vNPU. Written by: scheduler. Read by: device plugin,
   * exporter. Value: {@link org.vnpu.api.payload.SignedAllocation} as JSON v1, HMAC-signed.
   */
  public static final String ALLOCATION = "huawei.com/vnpu-ids-new";

  /**
   * Containers whose vNPUs the device plugin has not yet handed out. Written by: scheduler (all
   * containers), device plugin (pops one per Allocate). Read by: device plugin. Value: {@link
   * org.vnpu.api.payload.PendingContainers} as JSON v1.
   */
  public static final String DEVICES_TO_ALLOCATE = "huawei.com/vnpu-devices-to-allocate";

  /**
   * The node the scheduler chose. Written by: scheduler. Read by: device plugin, exporter. Value:
   * the node name.
   */
  public static final String ASSIGNED_NODE = "huawei.com/vnpu-node";

  /**
   * When the scheduler bound the pod. Written by: scheduler. Read by: device plugin, scheduler (to
   * expire reservations that never reach Allocate). Value: RFC 3339 instant.
   */
  public static final String BIND_TIME = "huawei.com/bind-time";

  /**
   * Where the pod is in the hand-out. Written by: scheduler ({@code allocating}), device plugin
   * ({@code success} or {@code failed}). Read by: both. Value: see {@link BindPhase}.
   */
  public static final String BIND_PHASE = "huawei.com/bind-phase";

  private AnnotationKeys() {}
}

package org.vnpu.api;

import static java.nio.charset.StandardCharsets.UTF_8;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Pattern;

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
   * One pod reserved on a node whose vNPUs the device plugin has not yet handed out: the key is
   * this prefix and the pod's UID ({@link #nodeLock}), one annotation per pod, so that an entry is
   * released by removing its own key (ADR 0032). Annotations of the node's lock Lease (named after
   * the node, in namespace {@code vnpu-node-locks}), not of the Node. Written by: scheduler (adds a
   * pod), device plugin (counts hand-outs, removes a pod after its last container). Read by: both.
   * Value: {@link org.vnpu.api.payload.NodeLock} as JSON v1; void after its {@code expiresAt}.
   */
  public static final String NODE_LOCK_PREFIX = "huawei.com/vnpu-node-lock.";

  /**
   * A hand-out whose holder is not settled yet, on the node's lock Lease: the key is this prefix
   * and a digest of the reservation's nonce ({@link #nodeHandout}). Written by: device plugin
   * (records a hand-out, names its holder), scheduler (removes it once settled). Read by: both.
   * Value: {@link org.vnpu.api.payload.HandoutRecord} as JSON v1.
   */
  public static final String NODE_HANDOUT_PREFIX = "huawei.com/vnpu-node-handout.";

  /** The longest pod UID a {@link #nodeLock} key carries as it is (63 less the name's prefix). */
  private static final int KEY_NAME_ROOM = 63 - "vnpu-node-lock.".length();

  private static final Pattern KEY_NAME_TAIL = Pattern.compile("[-A-Za-z0-9_.]*[A-Za-z0-9]");

  /**
   * The key of the entry of the pod {@code podUid}: the UID as it is when it may end an annotation
   * key (every UID the API server assigns may), else a digest of it.
   */
  public static String nodeLock(String podUid) {
    boolean fits = podUid.length() <= KEY_NAME_ROOM && KEY_NAME_TAIL.matcher(podUid).matches();
    return NODE_LOCK_PREFIX + (fits ? podUid : "h" + digest(podUid));
  }

  /**
   * The key of the hand-out record of reservation {@code nonce}: a digest, as a nonce (base64url)
   * may begin or end with a character a key may not.
   */
  public static String nodeHandout(String nonce) {
    return NODE_HANDOUT_PREFIX + digest(nonce);
  }

  /** Whether {@code key} is one of a lock Lease's entries or hand-out records. */
  public static boolean isNodeLockKey(String key) {
    return key.startsWith(NODE_LOCK_PREFIX) || key.startsWith(NODE_HANDOUT_PREFIX);
  }

  /** 32 hexadecimal digits of the SHA-256 of {@code text}. */
  private static String digest(String text) {
    try {
      byte[] hash = MessageDigest.getInstance("SHA-256").digest(text.getBytes(UTF_8));
      return HexFormat.of().formatHex(hash, 0, 16);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java platform has SHA-256", e);
    }
  }

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

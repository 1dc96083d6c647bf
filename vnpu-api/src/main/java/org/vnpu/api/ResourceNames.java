package org.vnpu.api;

/**
 * Extended resource names a workload declares in {@code resources.limits}. Compatible with
 * openFuyao vNPU pod specs. The device plugin registers every one with the kubelet, so that the
 * node advertises it and kube-scheduler, Volcano and the kubelet count it (ADR 0009); only {@link
 * #VNPU_NUMBER} hands out an allocation, the scheduler's extender decides placement.
 */
public final class ResourceNames {

  /**
   * Number of vNPUs for one container. Written by: the user. Read by: kubelet (device plugin
   * resource), scheduler. Value: whole number ≥ 1; more than 1 only for whole cards.
   */
  public static final String VNPU_NUMBER = "huawei.com/vnpu-number";

  /**
   * AI Core percent of one chip. Written by: the user. Read by: scheduler; kubelet, kube-scheduler
   * and Volcano count it ({@link #CORES_PER_CHIP} per chip). Value: whole number 0..100; absent
   * means 100 (whole card); 0 means no compute guarantee (best-effort, memory only).
   */
  public static final String VNPU_CORES = "huawei.com/vnpu-cores";

  /**
   * Device memory in GiB. Written by: the user. Read by: scheduler; kubelet, kube-scheduler and
   * Volcano count it (each chip's whole GiB). Value: whole number ≥ 1; absent means the whole
   * chip's memory.
   */
  public static final String VNPU_MEMORY_GIB = "huawei.com/vnpu-memory.1Gi";

  /**
   * Prefix of the optional chip-type selector, e.g. {@code huawei.com/vnpu-type.310P3: 1}. Written
   * by: the user. Read by: scheduler; kubelet, kube-scheduler and Volcano count it (share slots per
   * chip of the type). Value: the suffix names a chip type of the catalog; the quantity must be 1.
   */
  public static final String VNPU_TYPE_PREFIX = "huawei.com/vnpu-type.";

  /** How much {@link #VNPU_CORES} one chip advertises: its whole AI Core, in percent. */
  public static final int CORES_PER_CHIP = 100;

  private ResourceNames() {}

  /** The chip-type selector of {@code chipType}, e.g. {@code huawei.com/vnpu-type.310P3}. */
  public static String typeResource(String chipType) {
    return VNPU_TYPE_PREFIX + chipType;
  }

  /** Whether {@code name} is one of ours, so that a validator can warn about typos in it. */
  public static boolean isVnpuResource(String name) {
    return name.startsWith("huawei.com/vnpu-");
  }
}

package org.vnpu.api;

/**
 * Extended resource names a workload declares in {@code resources.limits}. Compatible with
 * openFuyao vNPU pod specs. Only {@link #VNPU_NUMBER} is registered with the kubelet; the others
 * are read by the scheduler from the pod spec.
 */
public final class ResourceNames {

  /**
   * Number of vNPUs for one container. Written by: the user. Read by: kubelet (device plugin
   * resource), scheduler. Value: whole number ≥ 1; more than 1 only for whole cards.
   */
  public static final String VNPU_NUMBER = "huawei.com/vnpu-number";

  /**
   * AI Core percent of one chip. Written by: the user. Read by: scheduler. Value: whole number
   * 0..100; absent means 100 (whole card); 0 means no compute guarantee (best-effort, memory only).
   */
  public static final String VNPU_CORES = "huawei.com/vnpu-cores";

  /**
   * Device memory in GiB. Written by: the user. Read by: scheduler. Value: whole number ≥ 1; absent
   * means the whole chip's memory.
   */
  public static final String VNPU_MEMORY_GIB = "huawei.com/vnpu-memory.1Gi";

  /**
   * Prefix of the optional chip-type selector, e.g. {@code huawei.com/vnpu-type.310P3: 1}. Written
   * by: the user. Read by: scheduler. Value: the suffix names a chip type of the catalog; the
   * quantity must be 1.
   */
  public static final String VNPU_TYPE_PREFIX = "huawei.com/vnpu-type.";

  private ResourceNames() {}

  /** Whether {@code name} is one of ours, so that a validator can warn about typos in it. */
  public static boolean isVnpuResource(String name) {
    return name.startsWith("huawei.com/vnpu-");
  }
}

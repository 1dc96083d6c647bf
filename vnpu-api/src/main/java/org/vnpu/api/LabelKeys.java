package org.vnpu.api;

/** Node labels that vNPU reads. Both are set by the cluster administrator (or the Helm chart). */
public final class LabelKeys {

  /**
   * Marks the nodes where the vNPU DaemonSets run. Written by: the administrator. Read by: the
   * DaemonSets' node selectors. Value: {@value #VNPU_READY_VALUE}.
   */
  public static final String VNPU = "huawei.com/vnpu";

  /** The only value of {@link #VNPU} that selects a node. */
  public static final String VNPU_READY_VALUE = "ready";

  /**
   * Split mode of the node. Written by: the administrator. Read by: device plugin, which publishes
   * it in the node inventory. Value: {@code soft} (default) or {@code hard}; see {@link SplitMode}.
   */
  public static final String SPLIT_MODE = "huawei.com/vnpu-mode";

  private LabelKeys() {}
}

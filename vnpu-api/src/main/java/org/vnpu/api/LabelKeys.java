package org.vnpu.api;

/**
 * Labels vNPU reads or writes: node labels set by the cluster administrator (or the Helm chart),
 * and the label the scheduler's leader puts on its own pod.
 */
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

  /**
   * Marks the scheduler replica that leads, so that the scheduler's Service, which selects it,
   * sends Volcano and kube-scheduler to the one replica that writes. Written by: the scheduler on
   * its own pod (set on winning the Lease, removed on losing it). Read by: the scheduler Service's
   * selector. Value: {@value #SCHEDULER_LEADER_VALUE}.
   */
  public static final String SCHEDULER_LEADER = "huawei.com/vnpu-scheduler-leader";

  /** The value of {@link #SCHEDULER_LEADER} on the leader's pod. */
  public static final String SCHEDULER_LEADER_VALUE = "true";

  private LabelKeys() {}
}

package org.vnpu.cluster;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.sandbox.BurstScenario;

/**
 * One row of the throughput benchmark: which scheduler places the pods, and what they ask for. Rows
 * {@code a} and {@code c} are the anchors, each scheduler alone with pods that ask for {@link
 * BenchNodes#WHOLE_CHIPS}; {@code b} and {@code d} are the same schedulers with the vNPU extender
 * in their path, with pods of one shape or of a mix, placed by binpack or fragmentation-aware.
 *
 * @param id {@code a}, {@code b1}..{@code b4}, {@code c}, {@code d1}..{@code d4}
 * @param schedulerName the pods' {@code spec.schedulerName}
 * @param schedulerUser the user the scheduler sends its requests as (for the audit log's counts)
 * @param shapes what the vNPU pods ask for; null: one whole chip by the plain resource
 * @param policy the vNPU pods' node and chip policy; null for plain pods
 */
record ThroughputRow(
    String id,
    String schedulerName,
    String schedulerUser,
    BurstScenario.Shapes shapes,
    PlacementPolicy policy) {

  /** The control plane's kube-scheduler, default profile, no extender. */
  static final String KUBE_SCHEDULER = "default-scheduler";

  /** The chart's kube-scheduler, whose profile calls the extender. */
  static final String VNPU_KUBE_SCHEDULER = "vnpu-scheduler";

  static final String VOLCANO = "volcano";

  /** Every row, in the order they run. */
  static List<ThroughputRow> all() {
    List<ThroughputRow> rows = new ArrayList<>();
    rows.add(new ThroughputRow("a", KUBE_SCHEDULER, "system:kube-scheduler", null, null));
    rows.addAll(
        extended(
            "b",
            VNPU_KUBE_SCHEDULER,
            "system:serviceaccount:"
                + VnpuRelease.NAMESPACE
                + ":"
                + VnpuRelease.NAME
                + "-kube-scheduler"));
    String volcano =
        "system:serviceaccount:"
            + VolcanoComponents.NAMESPACE
            + ":"
            + VolcanoComponents.SCHEDULER_ACCOUNT;
    rows.add(new ThroughputRow("c", VOLCANO, volcano, null, null));
    rows.addAll(extended("d", VOLCANO, volcano));
    return rows;
  }

  private static List<ThroughputRow> extended(String letter, String scheduler, String user) {
    List<ThroughputRow> rows = new ArrayList<>();
    int n = 1;
    for (BurstScenario.Shapes shapes : BurstScenario.Shapes.values()) {
      for (PlacementPolicy policy :
          List.of(PlacementPolicy.BINPACK, PlacementPolicy.FRAGMENTATION_AWARE)) {
        rows.add(new ThroughputRow(letter + n++, scheduler, user, shapes, policy));
      }
    }
    return rows;
  }

  /** Whether the vNPU extender is in this row's path. */
  boolean extended() {
    return shapes != null;
  }

  /** The row's anchor: {@code a} for kube-scheduler's rows, {@code c} for Volcano's. */
  String anchor() {
    return schedulerName.equals(VOLCANO) ? "c" : "a";
  }

  /** What the row is, in a few words. */
  String description() {
    String scheduler = schedulerName.equals(VOLCANO) ? "Volcano" : "kube-scheduler";
    if (!extended()) {
      return scheduler + " alone, one " + BenchNodes.WHOLE_CHIPS;
    }
    return scheduler
        + " + vNPU, "
        + shapes.name().toLowerCase(Locale.ROOT)
        + ", "
        + policy.wireName();
  }

  /** The row's {@code count} pods in {@code namespace}. */
  List<Pod> pods(String namespace, int count, long seed) {
    List<Pod> pods = new ArrayList<>();
    if (extended()) {
      for (Pod pod : BurstScenario.pods(count, shapes, policy, seed)) {
        pods.add(
            new PodBuilder(pod)
                .editMetadata()
                .withNamespace(namespace)
                .endMetadata()
                .editSpec()
                .withSchedulerName(schedulerName)
                .endSpec()
                .build());
      }
      return pods;
    }
    for (int i = 0; i < count; i++) {
      pods.add(
          new PodBuilder()
              .withNewMetadata()
              .withName(String.format("plain-%05d", i))
              .withNamespace(namespace)
              .endMetadata()
              .withNewSpec()
              .withSchedulerName(schedulerName)
              .addNewContainer()
              .withName("main")
              .withImage("inference:1")
              .withNewResources()
              .addToLimits(BenchNodes.WHOLE_CHIPS, new Quantity("1"))
              .endResources()
              .endContainer()
              .endSpec()
              .build());
    }
    return pods;
  }
}

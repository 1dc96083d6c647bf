package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.ContainerAllocation;
import org.vnpu.api.payload.VnpuAssignment;

/** The sandbox tests' view of their pods in {@link Scenario#NAMESPACE}. */
final class SandboxPods {

  private final Sandbox sandbox;
  private final PayloadCodec codec = new PayloadCodec();

  SandboxPods(Sandbox sandbox) {
    this.sandbox = sandbox;
  }

  /**
   * A sandbox of {@code nodes} scheduled as {@code driver} does with the chart's configuration
   * (Volcano's as {@code volcano}), with workloads, without rebalancing.
   */
  static Sandbox start(
      Path directory, Sandbox.Driver driver, List<NodeSpec> nodes, VolcanoConfig volcano)
      throws Exception {
    return Sandbox.start(
        new SandboxOptions(
            directory,
            driver,
            nodes,
            volcano,
            KubeSchedulerConfig.shipped(),
            true,
            Sandbox.NO_REBALANCING,
            0,
            List.of()));
  }

  /** A fixed share of 60 % with {@code huawei.com/vnpu-priority} and {@code spec.priority}. */
  static Pod prioritized(String name, String vnpuPriority, int priority) {
    Pod pod =
        DemoPods.inference(
            name, 60, 4, "fixed-share", Map.of(AnnotationKeys.PRIORITY, vnpuPriority), Map.of());
    pod.getSpec().setPriority(priority);
    return pod;
  }

  /** Submits an elastic inference pod whose kernels take 5 ms. */
  void submit(String name, int cores, int memoryGib) {
    submit(name, cores, memoryGib, Map.of());
  }

  /** As {@link #submit(String, int, int)}, with pod annotations. */
  void submit(String name, int cores, int memoryGib, Map<String, String> annotations) {
    create(
        DemoPods.inference(
            name, cores, memoryGib, "elastic", annotations, Map.of("WORKLOAD_KERNEL_US", "5000")));
  }

  void create(Pod pod) {
    sandbox.client().pods().inNamespace(Scenario.NAMESPACE).resource(pod).create();
  }

  Pod pod(String name) {
    return sandbox.client().pods().inNamespace(Scenario.NAMESPACE).withName(name).get();
  }

  String uid(String name) {
    Pod pod = pod(name);
    return pod == null ? null : pod.getMetadata().getUid();
  }

  String phase(String name) {
    Pod pod = pod(name);
    return pod == null || pod.getStatus() == null ? null : pod.getStatus().getPhase();
  }

  String node(String name) {
    return pod(name).getSpec().getNodeName();
  }

  /** Why the scheduling loop last did not bind the pod; null before it tried or once bound. */
  String notBoundBecause(String name) {
    String uid = uid(name);
    SchedulingLoop.Outcome outcome = uid == null ? null : sandbox.outcomes().get(uid);
    return outcome == null ? null : outcome.attempt().reason();
  }

  List<VnpuAssignment> vnpus(String name) {
    String value = pod(name).getMetadata().getAnnotations().get(AnnotationKeys.ALLOCATION);
    List<VnpuAssignment> vnpus = new ArrayList<>();
    for (ContainerAllocation container : codec.decodeAllocation(value).allocation().containers()) {
      vnpus.addAll(container.vnpus());
    }
    return vnpus;
  }
}

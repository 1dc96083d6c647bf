package org.vnpu.cli;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.SplitMode;
import org.vnpu.sandbox.NodeSpec;
import org.vnpu.sandbox.Sandbox;
import org.vnpu.sandbox.SandboxOptions;

/** Pods for the tests of the commands that read a cluster (a sandbox's). */
final class ClusterPods {

  private ClusterPods() {}

  /** Node a2: two 910B3 chips in soft mode. */
  static final NodeSpec A2 = NodeSpec.uniform("a2", "two 910B3", SplitMode.SOFT, "910B3", 2);

  /** A sandbox of these nodes, scheduled by Volcano, whose containers run no workload. */
  static Sandbox sandbox(Path directory, NodeSpec... nodes) throws IOException {
    return Sandbox.start(
        new SandboxOptions(directory, Sandbox.Driver.VOLCANO, List.of(nodes)).withoutWorkloads());
  }

  /** A pod of {@code count} vNPUs: whole cards without {@code cores}, else shares of them. */
  static Pod pod(String name, String namespace, String count, String cores, String gib) {
    Map<String, Quantity> limits = new HashMap<>();
    limits.put(ResourceNames.VNPU_NUMBER, new Quantity(count));
    if (cores != null) {
      limits.put(ResourceNames.VNPU_CORES, new Quantity(cores));
      limits.put(ResourceNames.VNPU_MEMORY_GIB, new Quantity(gib));
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(namespace)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("main")
        .withImage("inference:1")
        .withNewResources()
        .withLimits(limits)
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  static void create(KubernetesClient client, Pod pod) {
    client.pods().inNamespace(pod.getMetadata().getNamespace()).resource(pod).create();
  }

  static boolean running(KubernetesClient client, String namespace, String name) {
    Pod pod = client.pods().inNamespace(namespace).withName(name).get();
    return pod != null && pod.getStatus() != null && "Running".equals(pod.getStatus().getPhase());
  }
}

package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.util.HashMap;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.ResourceNames;

/** The pods the demo's steps submit, built as their owners would write them. */
final class DemoPods {

  private DemoPods() {}

  static Pod example(String name) throws IOException {
    try (InputStream in = DemoPods.class.getResourceAsStream("examples/" + name + ".yaml")) {
      if (in == null) {
        throw new IOException("example pod " + name + ".yaml is not in the jar");
      }
      Pod pod = Serialization.unmarshal(in, Pod.class);
      pod.getMetadata().setNamespace(Scenario.NAMESPACE);
      return pod;
    }
  }

  /** An inference pod of the burst's shape: one container, one vNPU. */
  static Pod inference(
      String name,
      int cores,
      int memoryGib,
      String policy,
      Map<String, String> annotations,
      Map<String, String> environment) {
    Map<String, String> all = new HashMap<>(annotations);
    if (policy != null) {
      all.put(AnnotationKeys.AICORE_POLICY, policy);
    }
    return new PodBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(Scenario.NAMESPACE)
        .withAnnotations(all)
        .endMetadata()
        .withNewSpec()
        .withSchedulerName("volcano")
        .addNewContainer()
        .withName("main")
        .withImage("inference:1")
        .withEnv(
            environment.entrySet().stream()
                .map(e -> new EnvVar(e.getKey(), e.getValue(), null))
                .toList())
        .withNewResources()
        .addToLimits(ResourceNames.VNPU_NUMBER, new Quantity("1"))
        .addToLimits(ResourceNames.VNPU_CORES, new Quantity(Integer.toString(cores)))
        .addToLimits(ResourceNames.VNPU_MEMORY_GIB, new Quantity(Integer.toString(memoryGib)))
        .endResources()
        .endContainer()
        .endSpec()
        .build();
  }

  /**
   * A ReplicaSet of {@code replicas} pods like {@code template}, labelled and selected by {@code
   * app: name}.
   */
  static ReplicaSet replicaSet(String name, int replicas, Pod template) {
    return new ReplicaSetBuilder()
        .withNewMetadata()
        .withName(name)
        .withNamespace(Scenario.NAMESPACE)
        .endMetadata()
        .withNewSpec()
        .withReplicas(replicas)
        .withNewSelector()
        .withMatchLabels(Map.of("app", name))
        .endSelector()
        .withNewTemplate()
        .withNewMetadata()
        .withLabels(Map.of("app", name))
        .withAnnotations(template.getMetadata().getAnnotations())
        .endMetadata()
        .withSpec(template.getSpec())
        .endTemplate()
        .endSpec()
        .build();
  }
}

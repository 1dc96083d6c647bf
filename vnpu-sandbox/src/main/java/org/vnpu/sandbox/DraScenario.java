package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.SplitMode;

/**
 * The demo's DRA pods: quarter-chip claims from a template, as {@code
 * deploy/examples/dra/soft-share.yaml} asks, on two nodes of two 910B3 offered through the DRA
 * driver.
 */
final class DraScenario {

  /** Two nodes of two 910B3, each chip as four quarters. */
  static final List<NodeSpec> NODES =
      List.of(
          NodeSpec.uniform("dra-a", "2x 910B3 through DRA", SplitMode.SOFT, "910B3", 2),
          NodeSpec.uniform("dra-b", "2x 910B3 through DRA", SplitMode.SOFT, "910B3", 2));

  /**
   * Where a pod's claim was allocated.
   *
   * @param node the node
   * @param device the device of the driver's slices
   * @param chip the chip's index
   */
  record Placed(String node, String device, int chip) {}

  /** The example the demo runs: a template of a quarter chip, and a pod of its claim. */
  private static final String EXAMPLE = "examples/dra/soft-share.yaml";

  /** The chart's {@code scheduler.kubeScheduler.schedulerName}: its profiles place the pod. */
  private static final String SCHEDULER = "vnpu-scheduler";

  private DraScenario() {}

  /** The example's template, in the demo's namespace. */
  static ResourceClaimTemplate template() {
    ResourceClaimTemplate template = document(ResourceClaimTemplate.class);
    template.getMetadata().setNamespace(Scenario.NAMESPACE);
    return template;
  }

  /**
   * The example's pod as {@code name}, in the demo's namespace, placed by {@code policy} (its node
   * policy annotation) through the sandbox's scheduler.
   */
  static Pod pod(String name, String policy) {
    Pod pod = document(Pod.class);
    pod.getMetadata().setName(name);
    pod.getMetadata().setNamespace(Scenario.NAMESPACE);
    pod.getMetadata().setAnnotations(Map.of(AnnotationKeys.NODE_SCHEDULER_POLICY, policy));
    pod.getSpec().setSchedulerName(SCHEDULER);
    return pod;
  }

  /** The example's document of {@code kind}. */
  private static <T extends HasMetadata> T document(Class<T> kind) {
    try (InputStream in = DraScenario.class.getResourceAsStream(EXAMPLE)) {
      if (in == null) {
        throw new IllegalStateException(EXAMPLE + " is not on the class path");
      }
      for (String document :
          new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n---\n")) {
        if (document.contains("\nkind: " + kind.getSimpleName() + "\n")) {
          return Serialization.unmarshal(document, kind);
        }
      }
      throw new IllegalStateException(EXAMPLE + " has no " + kind.getSimpleName());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The claim the pod's template made, or null. */
  static ResourceClaim claim(KubernetesClient client, String pod) {
    Pod current = client.pods().inNamespace(Scenario.NAMESPACE).withName(pod).get();
    if (current == null || current.getStatus() == null) {
      return null;
    }
    for (PodResourceClaimStatus made : current.getStatus().getResourceClaimStatuses()) {
      return client
          .resources(ResourceClaim.class)
          .inNamespace(Scenario.NAMESPACE)
          .withName(made.getResourceClaimName())
          .get();
    }
    return null;
  }

  /** Where the pod's claim was allocated, or null while it is not. */
  static Placed device(KubernetesClient client, String pod) {
    ResourceClaim claim = claim(client, pod);
    if (claim == null || claim.getStatus() == null || claim.getStatus().getAllocation() == null) {
      return null;
    }
    DeviceRequestAllocationResult result =
        claim.getStatus().getAllocation().getDevices().getResults().get(0);
    String device = result.getDevice(); // npu-<chip>-<k>of<n>
    return new Placed(result.getPool(), device, Integer.parseInt(device.split("-")[1]));
  }
}

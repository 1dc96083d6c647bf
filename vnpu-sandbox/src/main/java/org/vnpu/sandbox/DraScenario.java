package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.resource.v1.DeviceRequestAllocationResult;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimTemplate;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
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

  static final String TEMPLATE = "quarter-npu";

  /**
   * Where a pod's claim was allocated.
   *
   * @param node the node
   * @param device the device of the driver's slices
   * @param chip the chip's index
   */
  record Placed(String node, String device, int chip) {}

  private DraScenario() {}

  /** deploy/examples/dra/soft-share.yaml's template: a quarter of a chip. */
  static ResourceClaimTemplate template() {
    return Serialization.unmarshal(
        """
        apiVersion: resource.k8s.io/v1
        kind: ResourceClaimTemplate
        metadata: {name: %s, namespace: %s}
        spec:
          spec:
            devices:
              requests:
                - name: npu
                  exactly:
                    deviceClassName: vnpu.huawei.com
                    selectors:
                      - cel:
                          expression: >-
                            !device.attributes["vnpu.huawei.com"].wholeCard &&
                            device.capacity["vnpu.huawei.com"].aiCore == quantity("25")
        """
            .formatted(TEMPLATE, Scenario.NAMESPACE),
        ResourceClaimTemplate.class);
  }

  /** A pod of the template's claim, placed by {@code policy} (its node policy annotation). */
  static Pod pod(String name, String policy) {
    return Serialization.unmarshal(
        """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: %s
          annotations: {%s: %s}
        spec:
          schedulerName: vnpu-scheduler
          resourceClaims:
            - name: npu
              resourceClaimTemplateName: %s
          containers:
            - name: main
              image: inference:1
              resources:
                claims: [{name: npu}]
        """
            .formatted(
                name, Scenario.NAMESPACE, AnnotationKeys.NODE_SCHEDULER_POLICY, policy, TEMPLATE),
        Pod.class);
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

package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTermBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The node rules of a pod as kube-scheduler's NodeUnschedulable, NodeAffinity and TaintToleration.
 */
class NodeRulesTest {

  private static Node node(Map<String, String> labels, boolean cordoned, Taint... taints) {
    return new NodeBuilder()
        .withNewMetadata()
        .withName("npu-1")
        .withLabels(labels)
        .endMetadata()
        .withNewSpec()
        .withUnschedulable(cordoned)
        .withTaints(taints)
        .endSpec()
        .build();
  }

  private static PodBuilder pod() {
    return new PodBuilder().withNewMetadata().withName("p").endMetadata().withNewSpec().endSpec();
  }

  private static Pod tolerating(Toleration... tolerations) {
    return pod().editSpec().withTolerations(tolerations).endSpec().build();
  }

  private static Pod requiring(NodeSelectorRequirement... requirements) {
    return pod()
        .editSpec()
        .withNewAffinity()
        .withNewNodeAffinity()
        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
        .withNodeSelectorTerms(
            new NodeSelectorTermBuilder().withMatchExpressions(requirements).build())
        .endRequiredDuringSchedulingIgnoredDuringExecution()
        .endNodeAffinity()
        .endAffinity()
        .endSpec()
        .build();
  }

  private static NodeSelectorRequirement requirement(
      String key, String operator, String... values) {
    return new NodeSelectorRequirement(key, operator, List.of(values));
  }

  @Test
  void taintsWithSchedulingEffectsMustBeTolerated() {
    Taint npu = new Taint("NoSchedule", "huawei.com/Ascend910", null, "true");
    Node tainted = node(Map.of(), false, npu, new Taint("PreferNoSchedule", "soft", null, null));

    assertThat(NodeRules.refusal(pod().build(), tainted))
        .hasValue(
            "node npu-1 has the taint huawei.com/Ascend910=true:NoSchedule that the pod does not"
                + " tolerate");
    assertThat(
            NodeRules.refusal(
                tolerating(
                    new Toleration("NoSchedule", "huawei.com/Ascend910", "Equal", null, "true")),
                tainted))
        .isEmpty();
    assertThat(
            NodeRules.refusal(
                tolerating(new Toleration(null, "huawei.com/Ascend910", "Exists", null, null)),
                tainted))
        .as("Exists, any effect")
        .isEmpty();
    assertThat(
            NodeRules.refusal(
                tolerating(new Toleration(null, null, "Exists", null, null)), tainted))
        .as("an empty key with Exists tolerates everything")
        .isEmpty();
    assertThat(
            NodeRules.refusal(
                tolerating(
                    new Toleration("NoSchedule", "huawei.com/Ascend910", "Equal", null, "false")),
                tainted))
        .as("another value")
        .isPresent();
    assertThat(
            NodeRules.refusal(
                tolerating(
                    new Toleration("NoExecute", "huawei.com/Ascend910", "Exists", null, null)),
                tainted))
        .as("another effect")
        .isPresent();
  }

  @Test
  void aCordonedNodeTakesOnlyPodsToleratingIt() {
    Node cordoned = node(Map.of(), true);
    assertThat(NodeRules.refusal(pod().build(), cordoned))
        .hasValue("node npu-1 is cordoned (spec.unschedulable)");
    assertThat(
            NodeRules.refusal(
                tolerating(
                    new Toleration(
                        "NoSchedule", NodeRules.UNSCHEDULABLE_TAINT, "Exists", null, null)),
                cordoned))
        .isEmpty();
  }

  @Test
  void nodeSelectorAndRequiredAffinityMustMatch() {
    Node node = node(Map.of("zone", "a", "generation", "3"), false);

    assertThat(
            NodeRules.refusal(
                pod().editSpec().withNodeSelector(Map.of("zone", "b")).endSpec().build(), node))
        .hasValue("node npu-1 does not have the label zone=b the pod's nodeSelector asks for");
    assertThat(NodeRules.refusal(requiring(requirement("zone", "In", "a", "c")), node)).isEmpty();
    assertThat(NodeRules.refusal(requiring(requirement("zone", "NotIn", "a")), node)).isPresent();
    assertThat(NodeRules.refusal(requiring(requirement("gpu", "NotIn", "x")), node))
        .as("NotIn holds where the label is missing")
        .isEmpty();
    assertThat(NodeRules.refusal(requiring(requirement("gpu", "Exists")), node)).isPresent();
    assertThat(NodeRules.refusal(requiring(requirement("gpu", "DoesNotExist")), node)).isEmpty();
    assertThat(NodeRules.refusal(requiring(requirement("generation", "Gt", "2")), node)).isEmpty();
    assertThat(NodeRules.refusal(requiring(requirement("generation", "Lt", "2")), node))
        .hasValue("node npu-1 matches none of the pod's required node affinity terms");
    assertThat(
            NodeRules.refusal(
                requiring(requirement("zone", "In", "a"), requirement("generation", "Gt", "5")),
                node))
        .as("a term needs all its expressions")
        .isPresent();
  }
}

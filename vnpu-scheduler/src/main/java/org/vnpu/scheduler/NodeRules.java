package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vnpu.kube.LabelRequirements;

/**
 * The node rules a pod carries, checked as kube-scheduler's filters check them, for the writing
 * verbs: a caller that reaches {@code /kube/bind} or {@code allocateFunc} without having run the
 * schedulers' own filters must not place a pod where they would not. Followed step by step:
 *
 * <ul>
 *   <li>{@code NodeUnschedulable} ({@code pkg/scheduler/framework/plugins/nodeunschedulable}): a
 *       cordoned node takes only pods tolerating {@code
 *       node.kubernetes.io/unschedulable:NoSchedule};
 *   <li>{@code NodeAffinity} ({@code k8s.io/component-helpers/scheduling/corev1/nodeaffinity},
 *       {@code GetRequiredNodeAffinity().Match}): every {@code nodeSelector} label, and one of the
 *       required {@code nodeSelectorTerms} (each all its expressions and fields);
 *   <li>{@code TaintToleration} ({@code pkg/scheduler/framework/plugins/tainttoleration}, {@code
 *       FindMatchingUntoleratedTaint} over {@code NoSchedule} and {@code NoExecute} taints, {@code
 *       Toleration.ToleratesTaint} of {@code k8s.io/api/core/v1}).
 * </ul>
 */
final class NodeRules {

  static final String UNSCHEDULABLE_TAINT = "node.kubernetes.io/unschedulable";

  private NodeRules() {}

  /** Why {@code pod} may not go to {@code node}, or empty when the rules allow it. */
  static Optional<String> refusal(Pod pod, Node node) {
    String name = node.getMetadata().getName();
    List<Toleration> tolerations =
        pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
    if (Boolean.TRUE.equals(node.getSpec() == null ? null : node.getSpec().getUnschedulable())
        && !tolerated(new Taint("NoSchedule", UNSCHEDULABLE_TAINT, null, null), tolerations)) {
      return Optional.of("node " + name + " is cordoned (spec.unschedulable)");
    }
    Map<String, String> labels =
        node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    Map<String, String> selector = pod.getSpec().getNodeSelector();
    if (selector != null) {
      for (Map.Entry<String, String> wanted : selector.entrySet()) {
        if (!wanted.getValue().equals(labels.get(wanted.getKey()))) {
          return Optional.of(
              "node "
                  + name
                  + " does not have the label "
                  + wanted.getKey()
                  + "="
                  + wanted.getValue()
                  + " the pod's nodeSelector asks for");
        }
      }
    }
    List<NodeSelectorTerm> terms = requiredTerms(pod);
    if (terms != null && terms.stream().noneMatch(term -> matches(term, name, labels))) {
      return Optional.of(
          "node " + name + " matches none of the pod's required node affinity terms");
    }
    if (node.getSpec() != null && node.getSpec().getTaints() != null) {
      for (Taint taint : node.getSpec().getTaints()) {
        boolean filtering =
            "NoSchedule".equals(taint.getEffect()) || "NoExecute".equals(taint.getEffect());
        if (filtering && !tolerated(taint, tolerations)) {
          return Optional.of(
              "node "
                  + name
                  + " has the taint "
                  + taint.getKey()
                  + (taint.getValue() == null || taint.getValue().isEmpty()
                      ? ""
                      : "=" + taint.getValue())
                  + ":"
                  + taint.getEffect()
                  + " that the pod does not tolerate");
        }
      }
    }
    return Optional.empty();
  }

  /** The required terms, or null when the pod has no required node affinity. */
  private static List<NodeSelectorTerm> requiredTerms(Pod pod) {
    if (pod.getSpec().getAffinity() == null
        || pod.getSpec().getAffinity().getNodeAffinity() == null
        || pod.getSpec()
                .getAffinity()
                .getNodeAffinity()
                .getRequiredDuringSchedulingIgnoredDuringExecution()
            == null) {
      return null;
    }
    List<NodeSelectorTerm> terms =
        pod.getSpec()
            .getAffinity()
            .getNodeAffinity()
            .getRequiredDuringSchedulingIgnoredDuringExecution()
            .getNodeSelectorTerms();
    return terms == null ? List.of() : terms;
  }

  /** A term matches when it has a requirement and all of them hold (an empty term matches none). */
  private static boolean matches(NodeSelectorTerm term, String name, Map<String, String> labels) {
    List<NodeSelectorRequirement> expressions =
        term.getMatchExpressions() == null ? List.of() : term.getMatchExpressions();
    List<NodeSelectorRequirement> fields =
        term.getMatchFields() == null ? List.of() : term.getMatchFields();
    if (expressions.isEmpty() && fields.isEmpty()) {
      return false;
    }
    for (NodeSelectorRequirement expression : expressions) {
      if (!holds(
          expression, labels.containsKey(expression.getKey()), labels.get(expression.getKey()))) {
        return false;
      }
    }
    for (NodeSelectorRequirement field : fields) {
      // Only metadata.name is a supported field, with In and NotIn.
      if (!"metadata.name".equals(field.getKey()) || !holds(field, true, name)) {
        return false;
      }
    }
    return true;
  }

  private static boolean holds(NodeSelectorRequirement requirement, boolean present, String value) {
    return LabelRequirements.holds(
        requirement.getOperator(), requirement.getValues(), present ? value : null);
  }

  private static boolean tolerated(Taint taint, List<Toleration> tolerations) {
    return tolerations.stream().anyMatch(toleration -> tolerates(toleration, taint));
  }

  private static boolean tolerates(Toleration toleration, Taint taint) {
    String effect = toleration.getEffect();
    if (effect != null && !effect.isEmpty() && !effect.equals(taint.getEffect())) {
      return false;
    }
    String key = toleration.getKey();
    if ((key == null || key.isEmpty()) && !"Exists".equals(toleration.getOperator())) {
      return false; // an empty key must come with Exists (it then tolerates every taint)
    }
    if (key != null && !key.isEmpty() && !key.equals(taint.getKey())) {
      return false;
    }
    String operator = toleration.getOperator() == null ? "Equal" : toleration.getOperator();
    switch (operator) {
      case "Exists":
        return true;
      case "Equal":
      case "":
        return nullToEmpty(toleration.getValue()).equals(nullToEmpty(taint.getValue()));
      default:
        return false;
    }
  }

  private static String nullToEmpty(String text) {
    return text == null ? "" : text;
  }
}

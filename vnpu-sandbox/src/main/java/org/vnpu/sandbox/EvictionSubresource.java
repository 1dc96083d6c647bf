package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetList;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetStatus;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.Headers;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.HttpURLConnection;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.vnpu.kube.LabelRequirements;
import org.vnpu.kube.PodPhases;

/**
 * The eviction subresource, {@code POST /api/v1/namespaces/NS/pods/NAME/eviction}: the pod is
 * deleted unless its PodDisruptionBudget allows no disruption (429), as {@code
 * pkg/registry/core/pod/storage/eviction.go} {@code EvictionREST.Create} does; no controller
 * updates a budget's status here, so the status its writer gives is what the eviction reads.
 */
final class EvictionSubresource {

  private final MockStore store;

  EvictionSubresource(MockStore store) {
    this.store = store;
  }

  /**
   * The eviction subresource, step by step as {@code EvictionREST.Create}
   * (pkg/registry/core/pod/storage/eviction.go): the Eviction must name the pod of the URL; a pod
   * that is terminal, pending or being deleted is deleted without looking at budgets ({@code
   * canIgnorePDB}); otherwise the budgets of the namespace whose selector matches the pod's labels
   * are found ({@code getPodDisruptionBudgets}; an empty selector matches nothing); more than one
   * is a 500; with one, an unready pod of a budget that has its desired healthy pods is deleted
   * without a decrement, else {@code checkAndDecrement}: a budget whose status is older than its
   * generation, or that allows no disruption, refuses with 429, a negative allowance with 403;
   * otherwise the allowance drops by one, the pod is recorded in {@code disruptedPods}, and the pod
   * is deleted.
   */
  MockResponse evict(String namespace, String name, RecordedRequest request) {
    synchronized (store) {
      return evicted(namespace, name, request);
    }
  }

  private MockResponse evicted(String namespace, String name, RecordedRequest request) {
    Eviction eviction;
    try {
      eviction = Serialization.unmarshal(request.getUtf8Body(), Eviction.class);
    } catch (RuntimeException e) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_BAD_REQUEST, "BadRequest", "eviction is not JSON");
    }
    if (eviction.getMetadata() == null || !name.equals(eviction.getMetadata().getName())) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_BAD_REQUEST,
          "BadRequest",
          "name in URL does not match name in Eviction object");
    }
    String podPath = "/api/v1/namespaces/" + namespace + "/pods/" + name;
    MockResponse current = store.get(podPath);
    if (current.code() != HttpURLConnection.HTTP_OK) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_NOT_FOUND, "NotFound", "pods \"" + name + "\" not found");
    }
    Pod pod =
        Serialization.unmarshal(current.getBody().readString(StandardCharsets.UTF_8), Pod.class);
    boolean ignoresBudgets =
        PodPhases.finished(pod)
            || "Pending".equals(PodPhases.of(pod))
            || pod.getMetadata().getDeletionTimestamp() != null;
    if (!ignoresBudgets) {
      List<PodDisruptionBudget> budgets = budgetsOf(pod);
      if (budgets.size() > 1) {
        return ApiStatus.failure(
            HttpURLConnection.HTTP_INTERNAL_ERROR,
            "InternalError",
            "This pod has more than one PodDisruptionBudget, which the eviction subresource does"
                + " not support.");
      }
      if (budgets.size() == 1 && !(unready(pod) && hasDesiredHealthy(budgets.get(0)))) {
        MockResponse refused = checkAndDecrement(budgets.get(0), name);
        if (refused != null) {
          return refused;
        }
      }
    }
    MockResponse deleted = store.delete(podPath);
    if (deleted.code() >= 300) {
      return deleted;
    }
    return ApiStatus.created();
  }

  /** The budgets of the pod's namespace whose selector matches its labels. */
  private List<PodDisruptionBudget> budgetsOf(Pod pod) {
    MockResponse listed =
        store.get(
            "/apis/policy/v1/namespaces/"
                + pod.getMetadata().getNamespace()
                + "/poddisruptionbudgets");
    if (listed.code() != HttpURLConnection.HTTP_OK) {
      return List.of();
    }
    PodDisruptionBudgetList list =
        Serialization.unmarshal(
            listed.getBody().readString(StandardCharsets.UTF_8), PodDisruptionBudgetList.class);
    Map<String, String> labels =
        pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    return list.getItems().stream()
        .filter(pdb -> pdb.getSpec() != null && matches(pdb.getSpec().getSelector(), labels))
        .toList();
  }

  /**
   * {@code metav1.LabelSelectorAsSelector(selector).Matches(labels)}, where a nil or empty selector
   * matches nothing (eviction.go: "it should match nothing, not everything").
   */
  private static boolean matches(LabelSelector selector, Map<String, String> labels) {
    if (selector == null) {
      return false;
    }
    Map<String, String> required =
        selector.getMatchLabels() == null ? Map.of() : selector.getMatchLabels();
    List<LabelSelectorRequirement> expressions =
        selector.getMatchExpressions() == null ? List.of() : selector.getMatchExpressions();
    if (required.isEmpty() && expressions.isEmpty()) {
      return false;
    }
    for (Map.Entry<String, String> label : required.entrySet()) {
      if (!label.getValue().equals(labels.get(label.getKey()))) {
        return false;
      }
    }
    for (LabelSelectorRequirement expression : expressions) {
      // Gt and Lt are node selectors' alone: an invalid label selector matches nothing.
      if (expression.getOperator().equals("Gt")
          || expression.getOperator().equals("Lt")
          || !LabelRequirements.holds(
              expression.getOperator(), expression.getValues(), labels.get(expression.getKey()))) {
        return false;
      }
    }
    return true;
  }

  /** Not ready: no {@code Ready} condition that is {@code True} ({@code podutil.IsPodReady}). */
  private static boolean unready(Pod pod) {
    return pod.getStatus() == null
        || pod.getStatus().getConditions() == null
        || pod.getStatus().getConditions().stream()
            .noneMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  private static boolean hasDesiredHealthy(PodDisruptionBudget pdb) {
    PodDisruptionBudgetStatus status = pdb.getStatus();
    return status != null
        && status.getDesiredHealthy() != null
        && status.getCurrentHealthy() != null
        && status.getDesiredHealthy() > 0
        && status.getCurrentHealthy() >= status.getDesiredHealthy();
  }

  /** {@code checkAndDecrement}: the refusal, or null when the budget allowed it and was charged. */
  private MockResponse checkAndDecrement(PodDisruptionBudget pdb, String pod) {
    PodDisruptionBudgetStatus status =
        pdb.getStatus() == null ? new PodDisruptionBudgetStatus() : pdb.getStatus();
    long generation =
        pdb.getMetadata().getGeneration() == null ? 0 : pdb.getMetadata().getGeneration();
    long observed = status.getObservedGeneration() == null ? 0 : status.getObservedGeneration();
    int allowed = status.getDisruptionsAllowed() == null ? 0 : status.getDisruptionsAllowed();
    if (observed < generation || allowed == 0) {
      return ApiStatus.failure(
          429,
          "TooManyRequests",
          "Cannot evict pod as it would violate the pod's disruption budget.");
    }
    if (allowed < 0) {
      return ApiStatus.failure(
          HttpURLConnection.HTTP_FORBIDDEN,
          "Forbidden",
          "poddisruptionbudget \""
              + pdb.getMetadata().getName()
              + "\": pdb disruptions allowed is negative");
    }
    status.setDisruptionsAllowed(allowed - 1);
    Map<String, String> disrupted =
        status.getDisruptedPods() == null
            ? new HashMap<>()
            : new HashMap<>(status.getDisruptedPods());
    disrupted.put(pod, Instant.now().toString());
    status.setDisruptedPods(disrupted);
    pdb.setStatus(status);
    String path =
        "/apis/policy/v1/namespaces/"
            + pdb.getMetadata().getNamespace()
            + "/poddisruptionbudgets/"
            + pdb.getMetadata().getName()
            + "/status";
    store.update(
        new RecordedRequest(
            "HTTP/1.1",
            HttpMethod.PUT,
            path,
            Headers.builder().add("Content-Type", "application/json").build(),
            new Buffer(Serialization.asJson(pdb).getBytes(StandardCharsets.UTF_8))));
    return null;
  }
}

package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.EventBuilder;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the emulated schedulers and kubelets write about a pod: its status (conditions, nomination,
 * phase), events about it, and its deletion when they preempt it, each in its own order. Each
 * throws the client's exception.
 */
final class PodWrites {

  private static final Logger LOG = LoggerFactory.getLogger(PodWrites.class);

  /** How many times a status write is tried when another write came between its read and it. */
  private static final int STATUS_ATTEMPTS = 5;

  private PodWrites() {}

  /** A condition that changes now. */
  static PodCondition condition(String type, String status, String reason, String message) {
    return new PodConditionBuilder()
        .withType(type)
        .withStatus(status)
        .withReason(reason)
        .withMessage(message)
        .withLastTransitionTime(Instant.now().toString())
        .build();
  }

  /**
   * Writes the pod's status as {@code edit} makes it from the current pod, read again when another
   * write came in between (409), as the kubelet's status manager and the schedulers retry theirs
   * ({@code pkg/kubelet/status/status_manager.go syncPod} reads the pod and writes again on its
   * next sync); at most {@link #STATUS_ATTEMPTS} times.
   */
  static void editStatus(KubernetesClient client, Pod pod, UnaryOperator<Pod> edit) {
    for (int attempt = 1; ; attempt++) {
      try {
        client
            .pods()
            .inNamespace(pod.getMetadata().getNamespace())
            .withName(pod.getMetadata().getName())
            .editStatus(edit);
        return;
      } catch (KubernetesClientException e) {
        if (e.getCode() != HttpURLConnection.HTTP_CONFLICT || attempt == STATUS_ATTEMPTS) {
          throw e;
        }
      }
    }
  }

  /** Sets {@code conditions} on the pod's status, in place of any of the same types. */
  static void setConditions(KubernetesClient client, Pod pod, List<PodCondition> conditions) {
    editStatus(
        client,
        pod,
        current -> {
          List<PodCondition> all =
              new ArrayList<>(
                  current.getStatus() == null ? List.of() : current.getStatus().getConditions());
          all.removeIf(c -> conditions.stream().anyMatch(n -> n.getType().equals(c.getType())));
          all.addAll(conditions);
          current.setStatus(new PodStatusBuilder(current.getStatus()).withConditions(all).build());
          return current;
        });
  }

  /**
   * An event about {@code pod}.
   *
   * @param action the event's action; null for none
   * @param related the pod that caused it; null for none
   */
  static void record(
      KubernetesClient client,
      Pod pod,
      String type,
      String reason,
      String action,
      String message,
      Pod related) {
    client
        .v1()
        .events()
        .inNamespace(pod.getMetadata().getNamespace())
        .resource(
            new EventBuilder()
                .withNewMetadata()
                .withGenerateName(pod.getMetadata().getName() + ".")
                .endMetadata()
                .withType(type)
                .withReason(reason)
                .withAction(action)
                .withMessage(message)
                .withInvolvedObject(reference(pod))
                .withRelated(related == null ? null : reference(related))
                .build())
        .create();
  }

  /**
   * Deletes a pod for good, as its kubelet does once its containers stopped: grace period 0, only
   * if it is still the pod of that UID.
   */
  static void deleteNow(KubernetesClient client, Pod pod) {
    try {
      client
          .pods()
          .inNamespace(pod.getMetadata().getNamespace())
          .withName(pod.getMetadata().getName())
          .withGracePeriod(0)
          .delete();
    } catch (KubernetesClientException e) {
      LOG.warn(
          "cannot delete pod {}/{}: {}",
          pod.getMetadata().getNamespace(),
          pod.getMetadata().getName(),
          e.getMessage());
    }
  }

  static void delete(KubernetesClient client, Pod pod) {
    client
        .pods()
        .inNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .delete();
  }

  private static ObjectReference reference(Pod pod) {
    return new ObjectReferenceBuilder()
        .withKind("Pod")
        .withNamespace(pod.getMetadata().getNamespace())
        .withName(pod.getMetadata().getName())
        .withUid(pod.getMetadata().getUid())
        .build();
  }
}

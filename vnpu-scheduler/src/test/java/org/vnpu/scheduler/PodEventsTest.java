package org.vnpu.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.StatusBuilder;
import io.fabric8.kubernetes.api.model.StatusCauseBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import org.junit.jupiter.api.Test;

/**
 * Which refusals of an event the log need not warn of: as client-go's recorder, those of an event
 * that exists already or of a namespace being deleted; every other refusal stays a warning.
 */
class PodEventsTest {

  @Test
  void anEventOfANamespaceBeingDeletedOrOneThatExistsIsUnremarkable() {
    assertThat(PodEvents.unremarkable(refused(403, "Forbidden", "NamespaceTerminating"))).isTrue();
    assertThat(PodEvents.unremarkable(refused(409, "AlreadyExists", null))).isTrue();
  }

  @Test
  void otherRefusalsAreWarnedOf() {
    assertThat(PodEvents.unremarkable(refused(403, "Forbidden", null)))
        .as("RBAC refused the event: an operator must know")
        .isFalse();
    assertThat(PodEvents.unremarkable(refused(409, "Conflict", null))).isFalse();
    assertThat(PodEvents.unremarkable(refused(422, "Invalid", "FieldValueInvalid"))).isFalse();
    assertThat(PodEvents.unremarkable(new KubernetesClientException("connection refused")))
        .isFalse();
  }

  private static KubernetesClientException refused(int code, String reason, String cause) {
    StatusBuilder status = new StatusBuilder().withCode(code).withReason(reason);
    if (cause != null) {
      status
          .withNewDetails()
          .withCauses(new StatusCauseBuilder().withReason(cause).build())
          .endDetails();
    }
    return new KubernetesClientException(status.build());
  }
}

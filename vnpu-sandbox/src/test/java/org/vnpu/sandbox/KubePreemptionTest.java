package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** What kube-scheduler's emulated preemption reads from a pod's status, which others write. */
class KubePreemptionTest {

  @Test
  void aStartTimeThatDoesNotParseCountsAsNoneInsteadOfEndingTheRound() {
    Instant before = Instant.now();

    Instant read = KubePreemption.startTime(started("yesterday, around noon"));

    assertThat(read).isAfterOrEqualTo(before);
  }

  @Test
  void aStartTimeIsReadAsWritten() {
    assertThat(KubePreemption.startTime(started("2026-12-02T10:00:00Z")))
        .isEqualTo(Instant.parse("2026-12-02T10:00:00Z"));
  }

  private static Pod started(String startTime) {
    return new PodBuilder()
        .withNewMetadata()
        .withName("victim")
        .endMetadata()
        .withNewStatus()
        .withStartTime(startTime)
        .endStatus()
        .build();
  }
}

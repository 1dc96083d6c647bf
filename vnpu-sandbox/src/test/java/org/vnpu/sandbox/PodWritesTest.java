package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A status write that another write overtook is made again on the pod as it is now. */
class PodWritesTest {

  private final ApiServer api = ApiServer.start(0);
  private final KubernetesClient client = api.client();

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void aStatusWriteOvertakenByAnotherWriteIsMadeAgain() {
    Pod pod =
        client
            .pods()
            .inNamespace("default")
            .resource(DemoPods.inference("p", 30, 4, "elastic", Map.of(), Map.of()))
            .create();
    AtomicInteger edits = new AtomicInteger();

    PodWrites.editStatus(
        client,
        pod,
        current -> {
          if (edits.incrementAndGet() == 1) {
            // the scheduler re-signs the pod between the read and the write
            client
                .pods()
                .inNamespace("default")
                .withName("p")
                .edit(
                    p ->
                        new PodBuilder(p)
                            .editMetadata()
                            .addToLabels("x", "1")
                            .endMetadata()
                            .build());
          }
          current.setStatus(new PodStatusBuilder().withPhase("Running").build());
          return current;
        });

    assertThat(edits).hasValue(2);
    Pod now = client.pods().inNamespace("default").withName("p").get();
    assertThat(now.getStatus().getPhase()).isEqualTo("Running");
    assertThat(now.getMetadata().getLabels()).containsEntry("x", "1");
  }
}

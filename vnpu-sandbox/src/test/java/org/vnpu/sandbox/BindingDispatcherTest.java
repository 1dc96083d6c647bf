package org.vnpu.sandbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Pod binding on the sandbox's API server, as the real one does it. */
class BindingDispatcherTest {

  private final ApiServer api = ApiServer.start(0);
  private final KubernetesClient client = api.client();

  @AfterEach
  void stop() {
    api.close();
  }

  @Test
  void aBindingSetsTheNodeOnceAndRefusesASecondNode() {
    client
        .pods()
        .inNamespace("default")
        .resource(Scenario.inference("p", 30, 4, "elastic", Map.of(), Map.of()))
        .create();

    client.bindings().inNamespace("default").resource(binding("p", "n1")).create();

    assertThat(client.pods().inNamespace("default").withName("p").get().getSpec().getNodeName())
        .isEqualTo("n1");
    assertThatThrownBy(
            () -> client.bindings().inNamespace("default").resource(binding("p", "n2")).create())
        .isInstanceOf(KubernetesClientException.class)
        .hasMessageContaining("already assigned to node \"n1\"")
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(409);
  }

  @Test
  void aBindingOfAMissingPodIsNotFound() {
    assertThatThrownBy(
            () ->
                client.bindings().inNamespace("default").resource(binding("ghost", "n1")).create())
        .isInstanceOf(KubernetesClientException.class)
        .extracting(e -> ((KubernetesClientException) e).getCode())
        .isEqualTo(404);
  }

  @Test
  void otherRequestsReachTheCrudServer() {
    client
        .pods()
        .inNamespace("default")
        .resource(Scenario.inference("q", 30, 4, "elastic", Map.of(), Map.of()))
        .create();
    assertThat(client.pods().inNamespace("default").list().getItems()).hasSize(1);
  }

  private static Binding binding(String pod, String node) {
    return new BindingBuilder()
        .withNewMetadata()
        .withName(pod)
        .endMetadata()
        .withNewTarget()
        .withKind("Node")
        .withName(node)
        .endTarget()
        .build();
  }
}

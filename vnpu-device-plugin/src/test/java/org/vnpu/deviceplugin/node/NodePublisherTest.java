package org.vnpu.deviceplugin.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;

/** Which split mode a node publishes: the plugin's own when given, else the node label's. */
@EnableKubernetesMockClient(crud = true)
class NodePublisherTest {

  KubernetesClient client;

  private static final List<RegisteredChip> CHIPS =
      List.of(new RegisteredChip(0, "DIE-0", "910B3", 65536, 20, 7, true, 0, "0"));

  @Test
  void theLabelDecidesWhenThePluginWasGivenNoMode() {
    node("labelled", Map.of(LabelKeys.SPLIT_MODE, "hard"));
    node("unlabelled", Map.of());

    assertThat(publish("labelled", null)).map(NodeRegistration::splitMode).contains(SplitMode.HARD);
    assertThat(publish("unlabelled", null))
        .map(NodeRegistration::splitMode)
        .contains(SplitMode.SOFT);
  }

  @Test
  void aGivenModeWinsOverTheLabel() {
    node("group", Map.of(LabelKeys.SPLIT_MODE, "soft"));

    assertThat(publish("group", SplitMode.HARD))
        .map(NodeRegistration::splitMode)
        .contains(SplitMode.HARD);
  }

  @Test
  void aLabelOfNoKnownModePublishesNothingUnlessAModeWasGiven() {
    node("typo", Map.of(LabelKeys.SPLIT_MODE, "hrad"));

    assertThat(publish("typo", null)).isEmpty();
    assertThat(publish("typo", SplitMode.SOFT))
        .map(NodeRegistration::splitMode)
        .contains(SplitMode.SOFT);
  }

  private Optional<NodeRegistration> publish(String node, SplitMode mode) {
    return new NodePublisher(client, node, mode, 4, new PayloadCodec(), Clock.systemUTC())
        .publish(CHIPS);
  }

  private void node(String name, Map<String, String> labels) {
    client
        .nodes()
        .resource(
            new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(labels)
                .endMetadata()
                .build())
        .create();
  }
}

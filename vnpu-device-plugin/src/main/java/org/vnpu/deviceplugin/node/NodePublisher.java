package org.vnpu.deviceplugin.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.HandshakeState;
import org.vnpu.api.LabelKeys;
import org.vnpu.api.SplitMode;
import org.vnpu.api.WireValue;
import org.vnpu.api.codec.PayloadCodec;
import org.vnpu.api.payload.NodeHandshake;
import org.vnpu.api.payload.NodeRegistration;
import org.vnpu.api.payload.RegisteredChip;
import org.vnpu.kube.AnnotationPatches;

/**
 * Writes the node's inventory ({@code huawei.com/node-vnpu-register}) and heartbeat ({@code
 * huawei.com/node-vnpu-handshake}). The split mode is the one the plugin was given, or else comes
 * from the node label {@code huawei.com/vnpu-mode} (absent means soft); a label with another value
 * publishes nothing until it is fixed, so that a node meant for hard mode never receives soft
 * shares.
 */
public final class NodePublisher {

  private static final Logger LOG = LoggerFactory.getLogger(NodePublisher.class);

  private final KubernetesClient client;
  private final String node;
  private final SplitMode fixedMode;
  private final int maxSharesPerChip;
  private final PayloadCodec codec;
  private final Clock clock;
  private final AnnotationPatches patches;
  private String lastProblem;

  /**
   * @param fixedMode the split mode to publish whatever the node's label says; null: the label's
   */
  public NodePublisher(
      KubernetesClient client,
      String node,
      SplitMode fixedMode,
      int maxSharesPerChip,
      PayloadCodec codec,
      Clock clock) {
    this.client = client;
    this.node = node;
    this.fixedMode = fixedMode;
    this.maxSharesPerChip = maxSharesPerChip;
    this.codec = codec;
    this.clock = clock;
    this.patches = new AnnotationPatches(client);
  }

  /**
   * Publishes {@code chips} with a fresh heartbeat.
   *
   * @return the registration published, empty when the node or its label did not allow it
   */
  public Optional<NodeRegistration> publish(List<RegisteredChip> chips) {
    Node self = client.nodes().withName(node).get();
    if (self == null) {
      problem("node " + node + " does not exist in the API server; is --node-name right?");
      return Optional.empty();
    }
    Map<String, String> labels = self.getMetadata().getLabels();
    String label = labels == null ? null : labels.get(LabelKeys.SPLIT_MODE);
    Optional<SplitMode> mode =
        fixedMode != null
            ? Optional.of(fixedMode)
            : label == null ? Optional.of(SplitMode.SOFT) : WireValue.parse(SplitMode.class, label);
    if (mode.isEmpty()) {
      problem(
          "node label "
              + LabelKeys.SPLIT_MODE
              + "="
              + label
              + " is not one of "
              + WireValue.choices(SplitMode.class)
              + "; the inventory is not published until it is fixed");
      return Optional.empty();
    }
    NodeRegistration registration = new NodeRegistration(mode.get(), maxSharesPerChip, chips);
    patches.node(
        node,
        Map.of(
            AnnotationKeys.NODE_REGISTER,
            codec.encodeRegistration(registration),
            AnnotationKeys.NODE_HANDSHAKE,
            heartbeat()));
    if (lastProblem != null) {
      LOG.info("node {} publishes its inventory again", node);
      lastProblem = null;
    }
    return Optional.of(registration);
  }

  private String heartbeat() {
    return codec.encodeHandshake(new NodeHandshake(HandshakeState.REPORTED, clock.instant()));
  }

  private void problem(String message) {
    if (!message.equals(lastProblem)) {
      LOG.error(message);
      lastProblem = message;
    }
  }
}

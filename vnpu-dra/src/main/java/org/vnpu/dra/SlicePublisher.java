package org.vnpu.dra;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps this node's ResourceSlices equal to what it offers: each publication is a new generation of
 * the node's pool, slices no longer needed are deleted, and the slices are owned by the Node so
 * they go with it. A restarted driver continues above the generation it finds.
 */
final class SlicePublisher {

  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  private final KubernetesClient client;
  private final String driver;
  private final String node;
  private long generation;

  SlicePublisher(KubernetesClient client, String driver, String node) {
    this.client = client;
    this.driver = driver;
    this.node = node;
    this.generation =
        ours().stream().mapToLong(s -> s.getSpec().getPool().getGeneration()).max().orElse(0);
  }

  void publish(NodeDevices devices) {
    generation++;
    List<ResourceSlice> slices = ResourceSlices.of(driver, node, generation, devices);
    OwnerReference owner = owner();
    Set<String> names = new HashSet<>();
    for (ResourceSlice slice : slices) {
      if (owner != null) {
        slice.getMetadata().setOwnerReferences(List.of(owner));
      }
      client.resources(ResourceSlice.class).resource(slice).createOr(NonDeletingOperation::update);
      names.add(slice.getMetadata().getName());
    }
    for (ResourceSlice stale : ours()) {
      if (!names.contains(stale.getMetadata().getName())) {
        client.resources(ResourceSlice.class).resource(stale).delete();
      }
    }
    LOG.info(
        "published {} device(s) of node {} in {} slice(s), generation {}",
        devices.devices().size(),
        node,
        slices.size(),
        generation);
  }

  private List<ResourceSlice> ours() {
    return client.resources(ResourceSlice.class).list().getItems().stream()
        .filter(
            s -> driver.equals(s.getSpec().getDriver()) && node.equals(s.getSpec().getNodeName()))
        .toList();
  }

  private OwnerReference owner() {
    Node self = client.nodes().withName(node).get();
    return self == null
        ? null
        : new OwnerReferenceBuilder()
            .withApiVersion("v1")
            .withKind("Node")
            .withName(node)
            .withUid(self.getMetadata().getUid())
            .withController(true)
            .build();
  }
}

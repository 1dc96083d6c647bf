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
 * they go with it. A restarted driver continues above the generation it finds. The kubelet deletes
 * every slice of its node when it starts and 30 s after a driver deregisters ({@code
 * pkg/kubelet/cm/dra}, {@code wipeResourceSlices}): {@link #missing()} tells when to publish again.
 * What the API server stored is compared with what was sent: when it dropped the fields of a
 * feature gate that is off, the node would offer chips without their limits, so the slices are
 * deleted again and {@link GateOffException} names the gate.
 */
final class SlicePublisher {

  private static final Logger LOG = LoggerFactory.getLogger(SlicePublisher.class);

  /** The API server dropped the fields a sharing mode needs: a feature gate is off. */
  static final class GateOffException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    GateOffException(String message) {
      super(message);
    }
  }

  private final KubernetesClient client;
  private final String driver;
  private final String node;
  private long generation;
  private Set<String> published = Set.of();

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
      ResourceSlice stored =
          client
              .resources(ResourceSlice.class)
              .resource(slice)
              .createOr(NonDeletingOperation::update);
      names.add(slice.getMetadata().getName());
      String gate = droppedGate(slice, stored);
      if (gate != null) {
        names.forEach(name -> client.resources(ResourceSlice.class).withName(name).delete());
        published = Set.of();
        throw new GateOffException(
            "the API server dropped what sharing mode "
                + devices.sharing().wireName()
                + " needs from ResourceSlice "
                + slice.getMetadata().getName()
                + ": feature gate "
                + gate
                + " is off, and without it the scheduler would hand out more of a chip than it"
                + " has. Enable "
                + gate
                + " on kube-apiserver, kube-scheduler, kube-controller-manager and kubelet, or run"
                + " with --sharing profiles (docs/dra.md). The slices were deleted.");
      }
    }
    published = Set.copyOf(names);
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

  /** Whether a slice of the last publication is gone from the API server. */
  boolean missing() {
    Set<String> present = new HashSet<>();
    ours().forEach(slice -> present.add(slice.getMetadata().getName()));
    return !present.containsAll(published);
  }

  /**
   * The gate whose fields the API server dropped from {@code sent} ({@code
   * resourceslice/strategy.go}, {@code dropDisabledFields}), or null.
   */
  private static String droppedGate(ResourceSlice sent, ResourceSlice stored) {
    if (!sent.getSpec().getSharedCounters().isEmpty()
            && stored.getSpec().getSharedCounters().isEmpty()
        || consumesCounters(sent) && !consumesCounters(stored)) {
      return "DRAPartitionableDevices";
    }
    if (sharesDevices(sent) && !sharesDevices(stored)) {
      return "DRAConsumableCapacity";
    }
    return null;
  }

  private static boolean consumesCounters(ResourceSlice slice) {
    return slice.getSpec().getDevices().stream()
        .anyMatch(device -> !device.getConsumesCounters().isEmpty());
  }

  private static boolean sharesDevices(ResourceSlice slice) {
    return slice.getSpec().getDevices().stream()
        .anyMatch(device -> Boolean.TRUE.equals(device.getAllowMultipleAllocations()));
  }

  /**
   * This node's slices of this driver. The API server selects them (ResourceSlices offer the field
   * selectors {@code spec.nodeName} and {@code spec.driver}, {@code resourceslice/strategy.go}
   * {@code toSelectableFields}), so a poll reads one node's slices, not the cluster's; they are
   * filtered here again for servers that ignore field selectors.
   */
  private List<ResourceSlice> ours() {
    return client
        .resources(ResourceSlice.class)
        .withField("spec.nodeName", node)
        .withField("spec.driver", driver)
        .list()
        .getItems()
        .stream()
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

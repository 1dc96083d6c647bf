package org.vnpu.deviceplugin.allocate;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.ResourceNames;
import org.vnpu.api.payload.HandoutRecord;
import org.vnpu.api.payload.NodeLock;
import org.vnpu.api.payload.NodeLockSet;
import org.vnpu.api.payload.PodRef;
import org.vnpu.handouts.NodeFiles;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.NodePods;
import org.vnpu.kube.PodPhases;
import org.vnpu.kubelet.UnixSockets;
import org.vnpu.kubelet.podresources.v1.ContainerDevices;
import org.vnpu.kubelet.podresources.v1.ContainerResources;
import org.vnpu.kubelet.podresources.v1.ListPodResourcesRequest;
import org.vnpu.kubelet.podresources.v1.PodResources;
import org.vnpu.kubelet.podresources.v1.PodResourcesListerGrpc;

/**
 * Learns which pod holds each {@link HandoutRecord} of this node: asks the kubelet's PodResources
 * API ({@code List}) which pod's container got the record's device IDs, and records that pod on the
 * node's locks ({@link NodeLocks#heldBy}) and on the hand-out's files ({@link NodeFiles#user}); the
 * scheduler then re-signs the swapped pods' allocations and removes the record. A record held by
 * the pod it was signed for is removed here at once. A holder whose own reservation still stands
 * waits until it is handed out, so that no pod's annotations change while Allocate may read them;
 * so does a record whose pod still waits for its admission, as the open record keeps an entry for
 * it. A pass with nothing to record stands for the next ones for up to {@link #QUIET}. A record no
 * pod claims within {@link #UNCLAIMED} (the kubelet refused that pod after the hand-out) is
 * dropped.
 */
public final class HandoutResolver {

  /** How long a hand-out may go without a pod the kubelet reports holding it. */
  public static final Duration UNCLAIMED = Duration.ofMinutes(2);

  private static final Logger LOG = LoggerFactory.getLogger(HandoutResolver.class);
  private static final long LIST_DEADLINE_SECONDS = 5;

  /**
   * How long a pass that found nothing to record stands for the next ones while no hand-out was
   * recorded and the kubelet's answer is the same: nothing they read could tell them otherwise but
   * a pod deleted, an entry released or a record settled meanwhile, which this bounds.
   */
  static final Duration QUIET = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final String node;
  private final NodeLocks locks;
  private final NodeFiles files;
  private final Path podResources;
  private final Clock clock;
  private ManagedChannel channel;
  // Hand-outs recorded so far, and how many of them a pass has seen resolved; at start one may be
  // left from before a restart.
  private final AtomicLong recorded = new AtomicLong(1);
  private volatile long resolvedUpTo;

  /** The last pass that found nothing to record: the hand-outs it had seen, its answer, when. */
  private record Quiet(long seen, Map<Set<String>, Holding> holdings, Instant at) {}

  private Quiet quiet;

  /** Who holds which devices of a container, as the kubelet reports it. */
  private record Holding(String namespace, String name, String container, Set<String> deviceIds) {}

  public HandoutResolver(
      KubernetesClient client,
      String node,
      NodeLocks locks,
      NodeFiles files,
      Path podResources,
      Clock clock) {
    this.client = client;
    this.node = node;
    this.locks = locks;
    this.files = files;
    this.podResources = podResources;
    this.clock = clock;
  }

  /** A hand-out record was just written on the node's locks: look for its holder. */
  public void expect() {
    recorded.incrementAndGet();
  }

  /** One pass over the node's unresolved hand-outs, when one may be open. Never throws. */
  public void resolve() {
    long seen = recorded.get();
    if (seen == resolvedUpTo) {
      return;
    }
    try {
      Map<Set<String>, Holding> holdings = holdings();
      Instant now = clock.instant();
      if (quiet != null
          && quiet.seen() == seen
          && quiet.holdings().equals(holdings)
          && now.isBefore(quiet.at().plus(QUIET))) {
        return;
      }
      quiet = null;
      NodeLockSet held = locks.current(node);
      List<HandoutRecord> open =
          held.handouts().stream().filter(handout -> handout.heldBy() == null).toList();
      if (open.isEmpty()) {
        resolvedUpTo = seen;
        return;
      }
      Outcome outcome = outcome(open, holdings, held, now);
      if (outcome.none()) {
        quiet = new Quiet(seen, holdings, now);
      } else if (locks.resolved(
          node, held, outcome.settled(), outcome.heldBy(), outcome.surplus())) {
        report(outcome);
      }
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot resolve who holds this node's hand-outs, will retry: {}", e.toString());
    }
  }

  /** What one pass settles, hands to another holder, and releases. */
  private record Outcome(Set<String> settled, Map<String, PodRef> heldBy, Set<String> surplus) {

    boolean none() {
      return settled.isEmpty() && heldBy.isEmpty() && surplus.isEmpty();
    }
  }

  /**
   * Per open hand-out, whether its record is settled (held by its own pod, or by no pod long after
   * it was handed out) or goes to the interchangeable pod that holds it; and the node's surplus
   * entries.
   */
  private Outcome outcome(
      List<HandoutRecord> open, Map<Set<String>, Holding> holdings, NodeLockSet held, Instant now) {
    NodePods pods = NodePods.of(client, node);
    Set<String> admitted = admitted(holdings, pods);
    Set<String> surplus = surplus(held, admitted, pods);
    NodeLockSet waiting = held;
    for (String uid : surplus) {
      waiting = waiting.without(uid);
    }
    Set<String> settled = new HashSet<>();
    Map<String, PodRef> heldBy = new HashMap<>();
    for (HandoutRecord handout : open) {
      Holding holding = holdings.get(new TreeSet<>(handout.deviceIds()));
      PodRef holder = holding == null ? null : holder(holding, handout, pods);
      if (holder == null) {
        if (now.isAfter(handout.at().plus(UNCLAIMED))) {
          LOG.warn(
              "no pod holds the hand-out of pod {}'s reservation {} (devices {}) {} after it"
                  + " was handed out: the kubelet refused the pod it was for; dropping the"
                  + " record",
              handout.signedFor(),
              handout.nonce(),
              handout.deviceIds(),
              UNCLAIMED);
          settled.add(handout.nonce());
        }
      } else if (holder.uid().equals(handout.signedFor().uid())) {
        settled.add(handout.nonce());
      } else if (waiting.live(now).stream().noneMatch(lock -> lock.podUid().equals(holder.uid()))
          && (admitted.contains(handout.signedFor().uid())
              || !waitsForAdmission(pods, handout.signedFor()))) {
        // A holder whose own reservation is still to be handed out waits: its annotations
        // must not move while an Allocate may read them. So does a record whose pod still
        // waits for its admission: the open record is what keeps a spare entry for it (see
        // surplus), and once settled its pod's annotations would name a reservation no entry
        // serves (when its holder's own entry went to a third pod).
        heldBy.put(handout.nonce(), holder);
      }
    }
    return new Outcome(settled, heldBy, surplus);
  }

  /** Logs what a pass that the node's locks took changed. */
  private void report(Outcome outcome) throws IOException {
    Set<String> settled = outcome.settled();
    Set<String> surplus = outcome.surplus();
    Map<String, PodRef> heldBy = outcome.heldBy();
    surplus.forEach(
        uid ->
            LOG.info(
                "released the entry of pod UID {}: it runs on an interchangeable pod's"
                    + " hand-out, and no pod waiting for its admission needs the entry",
                uid));
    for (Map.Entry<String, PodRef> entry : heldBy.entrySet()) {
      PodRef holder = entry.getValue();
      files.user(
          entry.getKey(), new NodeFiles.PodRecord(holder.uid(), holder.namespace(), holder.name()));
      LOG.info(
          "pod {} runs on the allocation of reservation {}, signed for an interchangeable"
              + " pod: the scheduler re-signs both",
          holder,
          entry.getKey());
    }
    LOG.debug("{} hand-out(s) held by the pods they were signed for", settled.size());
  }

  /**
   * Entries no Allocate will serve. A pod admitted on an interchangeable pod's entry leaves its own
   * entry for the next pod of its shape; so does a pod deleted after such an admission (the
   * scheduler keeps its entry, {@code NodeLocks.releaseDeleted}). Each reservation still waiting
   * for its admission whose entry another pod took needs one such entry. When that reservation's
   * pod was deleted before its admission, the entry is left to nobody, and while it stood its pod
   * could not settle (its annotations must stay while an Allocate may read them) until it expired.
   * A deleted pod's entry goes first: Allocate cannot hand it out, its pod's annotations are gone.
   */
  private static Set<String> surplus(NodeLockSet held, Set<String> admitted, NodePods pods) {
    Set<String> surplus = new HashSet<>();
    Map<String, List<NodeLock>> spare = new HashMap<>();
    Set<String> deleted = new HashSet<>();
    for (NodeLock lock : held.holders()) {
      boolean gone =
          !admitted.contains(lock.podUid())
              && !waitsForAdmission(
                  pods, new PodRef(lock.podUid(), lock.podNamespace(), lock.podName()));
      if (gone) {
        deleted.add(lock.podUid());
      }
      if (gone || admitted.contains(lock.podUid())) {
        spare.computeIfAbsent(lock.shape(), shape -> new ArrayList<>()).add(lock);
      }
    }
    spare.forEach(
        (shape, entries) -> {
          long needed =
              held.handouts().stream()
                  .filter(handout -> handout.shape().equals(shape))
                  .map(HandoutRecord::signedFor)
                  .filter(pod -> !admitted.contains(pod.uid()) && held.of(pod.uid()).isEmpty())
                  .filter(pod -> waitsForAdmission(pods, pod))
                  .count();
          entries.stream()
              .sorted(
                  Comparator.comparing((NodeLock lock) -> !deleted.contains(lock.podUid()))
                      .thenComparing(NodeLock::acquiredAt, Comparator.reverseOrder()))
              .limit(Math.max(0, entries.size() - needed))
              .forEach(lock -> surplus.add(lock.podUid()));
        });
    return surplus;
  }

  /** Whether {@code ref} still exists on this node and has not ended. */
  private static boolean waitsForAdmission(NodePods pods, PodRef ref) {
    return pods.get(ref.namespace(), ref.name())
        .filter(pod -> ref.uid().equals(pod.getMetadata().getUid()))
        .filter(pod -> !PodPhases.finished(pod))
        .isPresent();
  }

  /**
   * The UIDs of the pods the kubelet admitted: those it lists with vNPU devices for every app
   * container that asks for vNPUs. The kubelet lists a pod from the start of its admission, with
   * the devices of the containers handed out so far ({@code GetActivePods}; the device manager
   * records a container's devices once its Allocate answered): a pod listed with fewer is still
   * being admitted, and the Allocate calls to come read its entry and its annotations.
   */
  private Set<String> admitted(Map<Set<String>, Holding> holdings, NodePods pods) {
    Map<Map.Entry<String, String>, Set<String>> listed = new HashMap<>();
    for (Holding holding : holdings.values()) {
      listed
          .computeIfAbsent(Map.entry(holding.namespace(), holding.name()), pod -> new HashSet<>())
          .add(holding.container());
    }
    Set<String> uids = new HashSet<>();
    listed.forEach(
        (pod, containers) ->
            pods.get(pod.getKey(), pod.getValue())
                .filter(found -> node.equals(found.getSpec().getNodeName()))
                .filter(found -> containers.containsAll(vnpuContainers(found)))
                .ifPresent(found -> uids.add(found.getMetadata().getUid())));
    return uids;
  }

  /**
   * The app containers of {@code pod} the kubelet hands vNPUs to: a vNPU count above zero ({@code
   * devicemanager/manager.go allocateContainerResources} skips a count of 0). A count that does not
   * parse, which the API server refuses, is no container's: the kubelet hands nothing for it.
   */
  private static Set<String> vnpuContainers(Pod pod) {
    Set<String> names = new HashSet<>();
    for (Container container : pod.getSpec().getContainers()) {
      Quantity count =
          container.getResources() == null || container.getResources().getLimits() == null
              ? null
              : container.getResources().getLimits().get(ResourceNames.VNPU_NUMBER);
      if (count != null && positive(count)) {
        names.add(container.getName());
      }
    }
    return names;
  }

  private static boolean positive(Quantity count) {
    try {
      return count.getNumericalAmount().signum() > 0;
    } catch (ArithmeticException | IllegalArgumentException e) {
      return false;
    }
  }

  /**
   * The pod whose container the kubelet gave the hand-out's devices, if it is still on this node.
   */
  private PodRef holder(Holding holding, HandoutRecord handout, NodePods pods) {
    if (!holding.container().equals(handout.container())) {
      return null;
    }
    Pod pod = pods.get(holding.namespace(), holding.name()).orElse(null);
    return pod == null || !node.equals(pod.getSpec().getNodeName())
        ? null
        : new PodRef(pod.getMetadata().getUid(), holding.namespace(), holding.name());
  }

  /**
   * The kubelet's answer, by the sorted device IDs of {@code vnpu-number} per container. The
   * kubelet lists each device in an entry of its own, so a container's IDs are gathered from all of
   * its entries of the resource.
   */
  private Map<Set<String>, Holding> holdings() {
    if (channel == null) {
      channel = UnixSockets.dial(podResources);
    }
    Map<Set<String>, Holding> holdings = new HashMap<>();
    List<PodResources> pods =
        PodResourcesListerGrpc.newBlockingStub(channel)
            .withDeadlineAfter(LIST_DEADLINE_SECONDS, TimeUnit.SECONDS)
            .list(ListPodResourcesRequest.getDefaultInstance())
            .getPodResourcesList();
    for (PodResources pod : pods) {
      for (ContainerResources container : pod.getContainersList()) {
        Set<String> ids = new TreeSet<>();
        for (ContainerDevices devices : container.getDevicesList()) {
          if (devices.getResourceName().equals(ResourceNames.VNPU_NUMBER)) {
            ids.addAll(devices.getDeviceIdsList());
          }
        }
        if (!ids.isEmpty()) {
          holdings.put(
              ids, new Holding(pod.getNamespace(), pod.getName(), container.getName(), ids));
        }
      }
    }
    return holdings;
  }

  /** Closes the connection to the kubelet. */
  public void close() {
    if (channel != null) {
      channel.shutdownNow();
    }
  }
}

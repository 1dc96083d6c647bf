package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.NodeBook;

/**
 * The schedulers' part the sandbox plays: takes unbound pods in the order they were created and
 * places each through a {@link SchedulingProtocol}, whose bindings run on threads of their own
 * while the loop goes on, as both schedulers run them. A pod that did not fit gets the condition
 * {@code PodScheduled=False} with the reason, as the schedulers write it, and is tried again after
 * a back-off (in the next round when only another pod's node lock was in the way); when the
 * extender cannot be reached (a restart), the round ends and the next one retries.
 */
final class SchedulingLoop implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulingLoop.class);
  private static final Duration ROUND = Duration.ofMillis(200);
  private static final Duration BACK_OFF = Duration.ofSeconds(2);

  /** What became of a pod so far: bound to a node, or the last reason it was not. */
  record Outcome(SchedulingProtocol.Attempt attempt, Instant at) {}

  private final KubernetesClient client;
  private final SchedulingProtocol protocol;
  private final Clock clock;
  private final Map<String, Outcome> outcomes = new ConcurrentHashMap<>();
  private final Map<String, Long> firstSeen = new ConcurrentHashMap<>();
  private final ScheduledExecutorService thread;
  private final ExecutorService binder;

  /** The node of each pod whose binding runs, by pod UID. */
  private final Map<String, String> binding = new ConcurrentHashMap<>();

  private final LongAdder placingNanos = new LongAdder();
  private final LongAdder bindingNanos = new LongAdder();

  SchedulingLoop(KubernetesClient client, SchedulingProtocol protocol, Clock clock) {
    this.client = client;
    this.protocol = protocol;
    this.clock = clock;
    this.thread =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-sandbox-scheduling"));
    this.binder = Executors.newCachedThreadPool(DaemonThreads.named("vnpu-sandbox-binding"));
  }

  SchedulingLoop start() {
    thread.scheduleWithFixedDelay(this::round, 0, ROUND.toMillis(), TimeUnit.MILLISECONDS);
    return this;
  }

  /**
   * Seconds spent placing pods so far: the schedulers' cycles, their calls to the extender
   * included, without the loop's own listing and the bindings that run apart.
   */
  double placingSeconds() {
    return placingNanos.sum() / 1e9;
  }

  /** Seconds the bindings that run apart took so far, summed over those that ran at once. */
  double bindingSeconds() {
    return bindingNanos.sum() / 1e9;
  }

  /** Outcomes by pod UID. */
  Map<String, Outcome> outcomes() {
    return Map.copyOf(outcomes);
  }

  /**
   * One scheduling cycle over one snapshot of the cluster, as both schedulers keep one: Volcano
   * opens a session on a snapshot of its cache and charges each allocation to the session's node
   * ({@code pkg/scheduler/framework/session.go openSession}, {@code cache.Snapshot}; {@code
   * actions/allocate/allocate.go} → {@code NodeInfo.AddTask}); kube-scheduler schedules from its
   * informer cache and assumes each pod it binds ({@code pkg/scheduler/schedule_one.go assume} →
   * {@code Cache.AssumePod}). Neither lists the API server per pod: the round lists nodes and pods
   * once and books each pod it binds on its node's book, as the assumed pod.
   */
  private void round() {
    try {
      // Taken before the list: a binding that ends in between shows in the list as bound.
      Map<String, String> bindingNow = Map.copyOf(binding);
      List<Pod> all = new ArrayList<>();
      for (Pod pod : client.pods().inAnyNamespace().list().getItems()) {
        String node = bindingNow.get(pod.getMetadata().getUid());
        // A pod being bound is on its node in the schedulers' caches (Volcano's task Binding,
        // kube-scheduler's assumed pod), not pending.
        all.add(
            node == null || pod.getSpec().getNodeName() != null
                ? pod
                : new PodBuilder(pod).editSpec().withNodeName(node).endSpec().build());
      }
      List<Node> nodes =
          client.nodes().list().getItems().stream()
              .sorted(Comparator.comparing(n -> n.getMetadata().getName()))
              .toList();
      Map<String, NodeBook> books = NodeBook.of(nodes, all);
      List<Pod> pending =
          all.stream()
              .filter(pod -> pod.getSpec().getNodeName() == null)
              .filter(pod -> pod.getMetadata().getDeletionTimestamp() == null)
              .filter(this::due)
              .sorted(Comparator.comparingLong(this::creationOrder))
              .toList();
      for (Pod pod : pending) {
        String unemulated = unemulated(pod, nodes);
        long started = System.nanoTime();
        SchedulingProtocol.Attempt attempt =
            unemulated != null
                ? SchedulingProtocol.Attempt.notBound(unemulated)
                : protocol.schedule(pod, books.values());
        placingNanos.add(System.nanoTime() - started);
        outcomes.put(pod.getMetadata().getUid(), new Outcome(attempt, clock.instant()));
        if (attempt.isBound()) {
          if (attempt.binding() != null) {
            binding.put(pod.getMetadata().getUid(), attempt.node());
            binder.execute(() -> bind(pod, attempt));
          } else {
            LOG.info("pod {} bound to {}", SchedulingProtocol.key(pod), attempt.node());
          }
          all.add(new PodBuilder(pod).editSpec().withNodeName(attempt.node()).endSpec().build());
          nodes.stream()
              .filter(node -> node.getMetadata().getName().equals(attempt.node()))
              .forEach(node -> books.putAll(NodeBook.of(List.of(node), all)));
        } else {
          LOG.info("pod {} not scheduled: {}", SchedulingProtocol.key(pod), attempt.reason());
          markUnschedulable(pod, attempt);
        }
      }
    } catch (IOException | KubernetesClientException e) {
      LOG.warn("scheduling round ended early: {}", e.getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("scheduling round failed", e);
    }
  }

  /**
   * Runs the binding of {@code attempt}; a pod it could not bind is not scheduled and is tried
   * again after the back-off, as both schedulers give a failed binding back to their queues.
   */
  private void bind(Pod pod, SchedulingProtocol.Attempt attempt) {
    String uid = pod.getMetadata().getUid();
    long started = System.nanoTime();
    String failure;
    try {
      failure = attempt.binding().bind();
    } catch (IOException | KubernetesClientException e) {
      failure = e.getMessage();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return;
    } finally {
      bindingNanos.add(System.nanoTime() - started);
    }
    if (failure == null) {
      LOG.info("pod {} bound to {}", SchedulingProtocol.key(pod), attempt.node());
    } else {
      SchedulingProtocol.Attempt failed =
          SchedulingProtocol.Attempt.notBound(
              "failed to bind to node " + attempt.node() + ": " + failure);
      outcomes.put(uid, new Outcome(failed, clock.instant()));
      LOG.info("pod {} not scheduled: {}", SchedulingProtocol.key(pod), failed.reason());
      markUnschedulable(pod, failed);
    }
    binding.remove(uid);
  }

  /**
   * Why the schedulers' placement of {@code pod} would depend on something the sandbox does not
   * emulate (node selectors, affinity, topology spread, taints), so that it refuses rather than
   * places the pod where a real scheduler might not; null when nothing does.
   */
  static String unemulated(Pod pod, List<Node> nodes) {
    PodSpec spec = pod.getSpec();
    String feature =
        spec.getNodeSelector() != null && !spec.getNodeSelector().isEmpty()
            ? "spec.nodeSelector"
            : spec.getAffinity() != null
                ? "spec.affinity"
                : !spec.getTopologySpreadConstraints().isEmpty()
                    ? "spec.topologySpreadConstraints"
                    : nodes.stream()
                        .filter(n -> n.getSpec() != null && !n.getSpec().getTaints().isEmpty())
                        .map(n -> "the taints of node " + n.getMetadata().getName())
                        .findFirst()
                        .orElse(null);
    return feature == null
        ? null
        : "the sandbox does not emulate how the schedulers treat " + feature;
  }

  private boolean due(Pod pod) {
    Outcome last = outcomes.get(pod.getMetadata().getUid());
    return last == null
        || last.attempt().waitsForALock()
        || last.at().plus(BACK_OFF).isBefore(clock.instant());
  }

  private void markUnschedulable(Pod pod, SchedulingProtocol.Attempt attempt) {
    try {
      PodWrites.editStatus(
          client,
          pod,
          current -> {
            PodStatus status = current.getStatus() == null ? new PodStatus() : current.getStatus();
            status.setPhase("Pending");
            status.setConditions(
                List.of(
                    new PodConditionBuilder()
                        .withType("PodScheduled")
                        .withStatus("False")
                        .withReason("Unschedulable")
                        .withMessage(attempt.reason())
                        .withLastTransitionTime(clock.instant().toString())
                        .build()));
            if (attempt.nominating() != null) {
              status.setNominatedNodeName(
                  attempt.nominating().isEmpty() ? null : attempt.nominating());
            }
            current.setStatus(status);
            return current;
          });
    } catch (KubernetesClientException e) {
      LOG.debug(
          "pod {}: cannot write its condition: {}", SchedulingProtocol.key(pod), e.getMessage());
    }
  }

  /** The resource version the pod had when first seen: the API server's creation order. */
  private long creationOrder(Pod pod) {
    return firstSeen.computeIfAbsent(
        pod.getMetadata().getUid(),
        uid -> {
          try {
            return Long.parseLong(pod.getMetadata().getResourceVersion());
          } catch (NumberFormatException e) {
            return Long.MAX_VALUE;
          }
        });
  }

  @Override
  public void close() {
    thread.shutdownNow();
    binder.shutdownNow();
  }
}

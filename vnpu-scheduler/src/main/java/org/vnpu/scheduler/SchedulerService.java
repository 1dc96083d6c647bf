package org.vnpu.scheduler;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceSlice;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.kube.DaemonThreads;
import org.vnpu.kube.Informers;
import org.vnpu.kube.NodeLocks;
import org.vnpu.kube.VerifyingKeyRetirement;

/**
 * One running scheduler: the ledger rebuilt from the API server, kept current by informers on
 * nodes, their lock Leases and pods (and, following a DRA driver, on ResourceSlices and
 * ResourceClaims), reservations that never bind expired every ten seconds, and the extender server.
 */
public final class SchedulerService implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(SchedulerService.class);

  /** How often hand-outs whose holder the device plugin found are re-signed. */
  static final Duration SETTLE_INTERVAL = Duration.ofMillis(250);

  static final Duration KEY_RETIREMENT_INTERVAL = Duration.ofMinutes(10);

  /**
   * How long a closing scheduler waits for the writes of reservations it has answered for: a few
   * retried round trips each.
   */
  static final Duration WRITES_ON_CLOSE = Duration.ofSeconds(10);

  private final Scheduler scheduler;

  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Pod> pods;

  /** The informers whose stores no verb reads: lock Leases and, following DRA, slices, claims. */
  private final List<SharedIndexInformer<?>> followed;

  private final ScheduledExecutorService expiry;
  private final ScheduledExecutorService rebalancing =
      Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-rebalancer"));
  private final ExtenderServer server;
  private final Leadership leadership;

  private SchedulerService(
      Scheduler scheduler,
      SharedIndexInformer<Node> nodes,
      SharedIndexInformer<Pod> pods,
      List<SharedIndexInformer<?>> followed,
      ScheduledExecutorService expiry,
      ExtenderServer server,
      Leadership leadership) {
    this.scheduler = scheduler;
    this.nodes = nodes;
    this.pods = pods;
    this.followed = followed;
    this.expiry = expiry;
    this.server = server;
    this.leadership = leadership;
  }

  /** Rebuilds the ledger, starts following the API server and serves on {@code listeners}. */
  public static SchedulerService start(
      Listeners listeners, Scheduler scheduler, KubernetesClient client, Leadership leadership)
      throws IOException {
    scheduler.rebuild();
    SharedIndexInformer<Node> nodes =
        client
            .nodes()
            .inform(
                Informers.handler(
                    scheduler::nodeChanged,
                    node -> scheduler.nodeRemoved(node.getMetadata().getName())));
    SharedIndexInformer<Lease> locks =
        client
            .resources(Lease.class)
            .inNamespace(NodeLocks.NAMESPACE)
            .inform(
                Informers.handler(
                    scheduler::locksChanged,
                    lease -> scheduler.locksRemoved(lease.getMetadata().getName())));
    SharedIndexInformer<Pod> pods =
        client
            .pods()
            .inAnyNamespace()
            .inform(
                Informers.handler(
                    scheduler::podChanged,
                    pod -> scheduler.podRemoved(pod.getMetadata().getUid())));
    List<SharedIndexInformer<?>> followed = new ArrayList<>(List.of(locks));
    followed.addAll(followDra(scheduler, client));
    ScheduledExecutorService expiry = expireAndSettle(scheduler, leadership);
    ExtenderRequests requests =
        new ExtenderRequests(
            client, key -> pods.getStore().getByKey(key), name -> nodes.getStore().getByKey(name));
    ExtenderServer server = ExtenderServer.start(listeners, scheduler, requests, leadership);
    if (listeners.mutualTls()) {
      LOG.info(
          "scheduler extender serves Volcano on port {} and kube-scheduler over mutual TLS on port"
              + " {}",
          server.port(),
          server.tlsPort());
    } else {
      LOG.info("scheduler extender serves on port {}", server.port());
    }
    return new SchedulerService(scheduler, nodes, pods, followed, expiry, server, leadership);
  }

  /** The node as the writing verbs see it (the node informer's copy), or null. */
  Node cachedNode(String name) {
    return nodes.getStore().getByKey(name);
  }

  /** The informers of the DRA driver's slices and claims, when the scheduler follows one. */
  private static List<SharedIndexInformer<?>> followDra(
      Scheduler scheduler, KubernetesClient client) {
    List<SharedIndexInformer<?>> dra = new ArrayList<>();
    if (scheduler.settings().followsDra()) {
      DraLedger ledger = scheduler.dra();
      dra.add(
          client
              .resources(ResourceSlice.class)
              .inform(Informers.handler(ledger::sliceChanged, ledger::sliceRemoved)));
      dra.add(
          client
              .resources(ResourceClaim.class)
              .inAnyNamespace()
              .inform(Informers.handler(ledger::claimChanged, ledger::claimRemoved)));
      LOG.info(
          "following DRA driver {}: nodes are ranked for pods with its claims",
          scheduler.settings().draDriver());
    }
    return dra;
  }

  /**
   * While this replica leads: expires reservations every 10 s and settles hand-outs every {@link
   * #SETTLE_INTERVAL}.
   */
  private static ScheduledExecutorService expireAndSettle(
      Scheduler scheduler, Leadership leadership) {
    ScheduledExecutorService expiry =
        Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("vnpu-reservations"));
    expiry.scheduleWithFixedDelay(
        () -> {
          if (leadership.isLeader()) {
            scheduler.expireReservations();
          }
        },
        10,
        10,
        TimeUnit.SECONDS);
    expiry.scheduleWithFixedDelay(
        () -> {
          if (leadership.isLeader()) {
            scheduler.settleHandouts();
          }
        },
        SETTLE_INTERVAL.toMillis(),
        SETTLE_INTERVAL.toMillis(),
        TimeUnit.MILLISECONDS);
    return expiry;
  }

  /**
   * Runs the rebalancer's passes while this replica leads, one every interval of its settings, on a
   * thread of their own so that a long pass delays no reservation's expiry.
   */
  public void rebalance(RebalanceController controller) {
    if (controller.settings().mode() == RebalanceMode.OFF) {
      return;
    }
    long every = controller.settings().interval().toMillis();
    rebalancing.scheduleWithFixedDelay(
        () -> {
          if (leadership.isLeader()) {
            try {
              controller.pass();
            } catch (RuntimeException e) {
              LOG.warn("rebalancing pass failed: {}", e.toString());
            }
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
  }

  /**
   * Retires, every {@link #KEY_RETIREMENT_INTERVAL} while this replica leads, the verifying keys no
   * running pod's allocation is signed with, but {@code signing}: after a rotation, the old key
   * leaves once its pods have ended (ADR 0011).
   */
  public void retireUnusedKeys(VerifyingKeyRetirement retirement, String signing) {
    long every = KEY_RETIREMENT_INTERVAL.toMillis();
    expiry.scheduleWithFixedDelay(
        () -> {
          if (leadership.isLeader() && pods.hasSynced()) {
            try {
              retirement.retireUnused(pods.getStore().list(), signing);
            } catch (RuntimeException e) {
              LOG.warn("retiring unused verifying keys failed: {}", e.toString());
            }
          }
        },
        every,
        every,
        TimeUnit.MILLISECONDS);
  }

  /** The plain HTTP port. */
  public int port() {
    return server.port();
  }

  /** The TLS port, or -1 without TLS. */
  public int tlsPort() {
    return server.tlsPort();
  }

  /**
   * Stops serving, then waits for the writes of the reservations already answered for (Volcano has
   * its answer and binds the pod), then lets go of the lease and stops following the API server.
   */
  @Override
  public void close() {
    server.close();
    expiry.shutdownNow();
    rebalancing.shutdownNow();
    if (!scheduler.finishWrites(WRITES_ON_CLOSE)) {
      LOG.warn("closing with reservations still being written after {}", WRITES_ON_CLOSE);
    }
    leadership.close();
    nodes.close();
    pods.close();
    followed.forEach(SharedIndexInformer::close);
  }
}

package org.vnpu.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfig;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.vnpu.api.LabelKeys;

/**
 * Which of the scheduler's replicas writes. Every replica keeps its own ledger from the informers
 * and answers the read-only verbs (filter, prioritize, predicate); only the leader of the Lease
 * reserves, binds and rolls back. The leader labels its own pod {@link LabelKeys#SCHEDULER_LEADER},
 * so a Service selecting that label sends the schedulers to it while every replica stays ready; a
 * follower called directly for a write answers with the protocol's error naming the leader. A
 * replica that loses the Lease stands for election again.
 */
public final class Leadership implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

  /** The Lease the replicas elect on unless told otherwise. */
  public static final String DEFAULT_LEASE = "vnpu-scheduler-extender";

  private final String identity;
  private volatile boolean leader;
  private volatile String current = "";
  private volatile boolean closed;
  private KubernetesClient client;
  private LeaderElectionConfig config;
  private Duration retry;
  private volatile CompletableFuture<?> election;

  private Leadership(String identity, boolean leader) {
    this.identity = identity;
    this.leader = leader;
  }

  /** A single replica: always the leader. */
  public static Leadership alone() {
    return new Leadership("single", true);
  }

  /**
   * Takes part in the election on the Lease {@code namespace/lease}, and keeps taking part.
   *
   * @param pod this replica's pod in {@code namespace}, labelled while it leads; null when it runs
   *     outside a pod
   * @param leaseDuration how long a silent leader keeps the Lease; a follower takes over after it
   */
  public static Leadership elect(
      KubernetesClient client,
      String namespace,
      String lease,
      String identity,
      String pod,
      Duration leaseDuration) {
    Leadership leadership = new Leadership(identity, false);
    LeaderLabel label = new LeaderLabel(client, namespace, pod);
    leadership.retry = leaseDuration.dividedBy(5);
    leadership.client = client;
    leadership.config =
        new LeaderElectionConfigBuilder()
            .withName(lease)
            .withLock(new LeaseLock(namespace, lease, identity))
            .withLeaseDuration(leaseDuration)
            .withRenewDeadline(leaseDuration.multipliedBy(2).dividedBy(3))
            .withRetryPeriod(leadership.retry)
            .withReleaseOnCancel(true)
            .withLeaderCallbacks(
                new LeaderCallbacks(
                    () -> {
                      leadership.leader = true;
                      label.set(true);
                      LOG.info("{} leads: it reserves and binds", identity);
                    },
                    () -> {
                      leadership.leader = false;
                      label.set(false);
                      LOG.info("{} no longer leads", identity);
                    },
                    name -> leadership.current = name))
            .build();
    leadership.stand();
    return leadership;
  }

  /**
   * Starts an election round with a new elector (one that has led does not start again); when it
   * ends, with leadership lost, and we are open, another one.
   */
  private void stand() {
    if (closed) {
      return;
    }
    election = client.leaderElector().withConfig(config).build().start();
    election.whenComplete(
        (done, error) -> {
          if (!closed) {
            LOG.info("{} stands for election again", identity);
            CompletableFuture.runAsync(
                this::stand,
                CompletableFuture.delayedExecutor(retry.toMillis(), TimeUnit.MILLISECONDS));
          }
        });
  }

  public boolean isLeader() {
    return leader;
  }

  /** Why this replica does not write, for the protocols' error fields. */
  String notLeader() {
    return "replica "
        + identity
        + " is not the vNPU scheduler's leader (the leader is "
        + (current.isEmpty() ? "not known yet" : current)
        + "); retry";
  }

  @Override
  public void close() {
    closed = true;
    CompletableFuture<?> running = election;
    if (running != null) {
      running.cancel(true);
    }
    leader = false;
  }

  /** The leader label on this replica's own pod. */
  private record LeaderLabel(KubernetesClient client, String namespace, String pod) {

    void set(boolean leading) {
      if (pod == null || pod.isBlank()) {
        return;
      }
      String value = leading ? "\"" + LabelKeys.SCHEDULER_LEADER_VALUE + "\"" : "null";
      try {
        client
            .pods()
            .inNamespace(namespace)
            .withName(pod)
            .patch(
                PatchContext.of(PatchType.JSON_MERGE),
                "{\"metadata\":{\"labels\":{\""
                    + LabelKeys.SCHEDULER_LEADER
                    + "\":"
                    + value
                    + "}}}");
      } catch (KubernetesClientException e) {
        LOG.warn(
            "cannot {} the leader label on pod {}/{}: {}",
            leading ? "set" : "remove",
            namespace,
            pod,
            e.getMessage());
      }
    }
  }
}

package org.vnpu.scheduler;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which of the scheduler's replicas writes. Every replica keeps its own ledger from the informers
 * and answers the read-only verbs (filter, prioritize, predicate); only the leader of the Lease
 * reserves, binds and rolls back. {@code /readyz} is ready on the leader only, so a Service behind
 * a readiness probe sends the schedulers to it; a follower called directly for a write answers with
 * the protocol's error naming the leader.
 */
public final class Leadership implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(Leadership.class);

  private final String identity;
  private volatile boolean leader;
  private volatile String current = "";
  private CompletableFuture<?> election;

  private Leadership(String identity, boolean leader) {
    this.identity = identity;
    this.leader = leader;
  }

  /** A single replica: always the leader. */
  public static Leadership alone() {
    return new Leadership("single", true);
  }

  /**
   * Takes part in the election on the Lease {@code namespace/vnpu-scheduler}.
   *
   * @param leaseDuration how long a silent leader keeps the Lease; a follower takes over after it
   */
  public static Leadership elect(
      KubernetesClient client, String namespace, String identity, Duration leaseDuration) {
    Leadership leadership = new Leadership(identity, false);
    leadership.election =
        client
            .leaderElector()
            .withConfig(
                new LeaderElectionConfigBuilder()
                    .withName("vnpu-scheduler")
                    .withLock(new LeaseLock(namespace, "vnpu-scheduler", identity))
                    .withLeaseDuration(leaseDuration)
                    .withRenewDeadline(leaseDuration.multipliedBy(2).dividedBy(3))
                    .withRetryPeriod(leaseDuration.dividedBy(5))
                    .withReleaseOnCancel(true)
                    .withLeaderCallbacks(
                        new LeaderCallbacks(
                            () -> {
                              leadership.leader = true;
                              LOG.info("{} leads: it reserves and binds", identity);
                            },
                            () -> {
                              leadership.leader = false;
                              LOG.info("{} no longer leads", identity);
                            },
                            name -> leadership.current = name))
                    .build())
            .build()
            .start();
    return leadership;
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
    if (election != null) {
      election.cancel(true);
    }
    leader = false;
  }
}

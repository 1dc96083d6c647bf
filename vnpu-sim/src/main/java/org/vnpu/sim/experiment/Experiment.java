package org.vnpu.sim.experiment;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.vnpu.core.engine.PlacementContext;
import org.vnpu.core.fragmentation.FragmentationMeter;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.ledger.AllocationPlan;
import org.vnpu.core.ledger.Ledger;
import org.vnpu.core.ledger.NodeState;
import org.vnpu.core.policy.Policies;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;

/**
 * Runs every policy over every seed's arrivals. All policies see the same arrivals for a seed; runs
 * are independent and spread over {@code threads}.
 *
 * @param cluster the nodes
 * @param workload the original pods (before inflation)
 * @param mix the typical shapes the fragmentation measure and policy use
 * @param protocol inflation and shuffling
 * @param policies contender names, see {@link Contenders}
 * @param seeds one run per policy and seed
 * @param tieBreak how the paper's baselines choose among equal scores
 */
public record Experiment(
    SimCluster cluster,
    List<SimPod> workload,
    WorkloadMix mix,
    Protocol protocol,
    List<String> policies,
    List<Long> seeds,
    TieBreak tieBreak) {

  /** How often a run reports progress, in arrivals. */
  private static final int PROGRESS_STEP = 250;

  public List<RunResult> run(int threads, Progress progress) {
    Map<Long, List<SimPod>> arrivals = new HashMap<>(); // filled before any run starts
    for (long seed : seeds) {
      arrivals.put(seed, protocol.arrivals(workload, cluster.computePercent(), seed));
    }
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      List<Future<RunResult>> futures = new ArrayList<>();
      for (String policy : policies) {
        for (long seed : seeds) {
          futures.add(pool.submit(() -> runOne(policy, seed, arrivals.get(seed), progress)));
        }
      }
      List<RunResult> results = new ArrayList<>();
      for (Future<RunResult> future : futures) {
        results.add(future.get());
      }
      return results;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("simulation interrupted", e);
    } catch (ExecutionException e) {
      throw new IllegalStateException("a simulation run failed: " + e.getCause(), e.getCause());
    } finally {
      pool.shutdownNow();
    }
  }

  /** One policy over one seed's arrivals. */
  public RunResult runOne(String policy, long seed, List<SimPod> arrivals, Progress progress) {
    long started = System.nanoTime();
    Contender contender = Contenders.create(policy, seed, tieBreak);
    Ledger ledger = cluster.newLedger();
    FragmentationMeter meter = new FragmentationMeter(mix);
    PlacementContext context =
        new PlacementContext(SimCluster.EPOCH, Duration.ofDays(1), Policies.asRequested(), meter);
    double capacity = cluster.computePercent();
    ClusterFragmentation fragmentation = new ClusterFragmentation(ledger, meter);
    PriorityQueue<SimPod> running =
        new PriorityQueue<>(Comparator.comparingDouble(p -> p.timing().departure()));
    long arrived = 0;
    long allocated = 0;
    int failed = 0;
    List<Sample> samples = new ArrayList<>(arrivals.size());
    for (int i = 0; i < arrivals.size(); i++) {
      SimPod pod = arrivals.get(i);
      while (pod.timing() != null
          && !running.isEmpty()
          && running.peek().timing().departure() <= pod.timing().arrival()) {
        SimPod leaving = running.poll();
        ledger.release(leaving.request().uid()).ifPresent(p -> fragmentation.changed(p.node()));
        allocated -= leaving.computePercent();
      }
      arrived += pod.computePercent();
      Optional<AllocationPlan> plan = contender.choose(pod, ledger, context);
      if (plan.isPresent() && ledger.apply(plan.get())) {
        allocated += pod.computePercent();
        contender.placed(pod, plan.get());
        fragmentation.changed(plan.get().node());
        if (pod.timing() != null && pod.timing().departure() != null) {
          running.add(pod);
        }
      } else {
        failed++;
      }
      samples.add(
          new Sample(
              i + 1,
              100 * arrived / capacity,
              100 * allocated / capacity,
              100 * fragmentation.total() / capacity,
              failed));
      if ((i + 1) % PROGRESS_STEP == 0 || i + 1 == arrivals.size()) {
        progress.advanced(policy, seed, i + 1, arrivals.size());
      }
    }
    return new RunResult(policy, seed, samples, (System.nanoTime() - started) / 1_000_000);
  }

  /** The cluster's fragmentation, kept up to date node by node as placements change them. */
  private static final class ClusterFragmentation {
    private final Ledger ledger;
    private final FragmentationMeter meter;
    private final Map<String, Double> byNode = new java.util.HashMap<>();
    private double total;

    ClusterFragmentation(Ledger ledger, FragmentationMeter meter) {
      this.ledger = ledger;
      this.meter = meter;
      for (NodeState node : ledger.nodes()) {
        byNode.put(node.name(), meter.fragmentation(node));
        total += byNode.get(node.name());
      }
    }

    void changed(String node) {
      double now = meter.fragmentation(ledger.node(node).orElseThrow());
      total += now - byNode.put(node, now);
    }

    double total() {
      return total;
    }
  }
}

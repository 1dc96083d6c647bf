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
import org.vnpu.core.engine.RebalancePlanner;
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
 * @param rebalancing when set, each engine policy also runs with rebalancing, under {@link
 *     Rebalancing#label}; null for none
 */
public record Experiment(
    SimCluster cluster,
    List<SimPod> workload,
    WorkloadMix mix,
    Protocol protocol,
    List<String> policies,
    List<Long> seeds,
    TieBreak tieBreak,
    Rebalancing rebalancing) {

  /** An experiment without rebalancing. */
  public Experiment(
      SimCluster cluster,
      List<SimPod> workload,
      WorkloadMix mix,
      Protocol protocol,
      List<String> policies,
      List<Long> seeds,
      TieBreak tieBreak) {
    this(cluster, workload, mix, protocol, policies, seeds, tieBreak, null);
  }

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
        boolean rebalanced = rebalances(policy);
        for (long seed : seeds) {
          List<SimPod> pods = arrivals.get(seed);
          futures.add(pool.submit(() -> runOne(policy, seed, pods, null, progress)));
          if (rebalanced) {
            futures.add(pool.submit(() -> runOne(policy, seed, pods, rebalancing, progress)));
          }
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

  /** How many runs {@link #run} makes. */
  public int runs() {
    long rebalanced = policies.stream().filter(this::rebalances).count();
    return (int) ((policies.size() + rebalanced) * seeds.size());
  }

  /** Whether {@code policy} also runs with rebalancing: only the engine's policies can. */
  private boolean rebalances(String policy) {
    return rebalancing != null && Contenders.paper(policy).isEmpty();
  }

  /** One policy over one seed's arrivals, rebalancing when {@code rebalancing} is set. */
  public RunResult runOne(
      String policy, long seed, List<SimPod> arrivals, Rebalancing rebalancing, Progress progress) {
    long started = System.nanoTime();
    String label = rebalancing == null ? policy : Rebalancing.label(policy);
    Run run = new Run(Contenders.create(policy, seed, tieBreak), rebalancing);
    List<Sample> samples = new ArrayList<>(arrivals.size());
    for (int i = 0; i < arrivals.size(); i++) {
      SimPod pod = arrivals.get(i);
      double now = pod.timing() == null ? i : pod.timing().arrival();
      if (pod.timing() != null) {
        run.departBy(pod.timing().arrival());
        run.cool(i, now);
      }
      run.arrive(pod, i, now);
      samples.add(run.sample(i + 1));
      if ((i + 1) % PROGRESS_STEP == 0 || i + 1 == arrivals.size()) {
        progress.advanced(label, seed, i + 1, arrivals.size());
      }
    }
    return new RunResult(label, seed, samples, (System.nanoTime() - started) / 1_000_000);
  }

  /**
   * One policy's run over the cluster: its ledger, the pods running in the order they leave, and
   * what the samples count.
   */
  private final class Run {
    private final Contender contender;
    private final Ledger ledger = cluster.newLedger();
    private final PlacementContext context;
    private final Rebalancer rebalancer;
    private final double capacity = cluster.computePercent();
    private final ClusterFigures figures;
    private final PriorityQueue<SimPod> running =
        new PriorityQueue<>(Comparator.comparingDouble(p -> p.timing().departure()));
    private long arrived;
    private long allocated;
    private int failed;

    Run(Contender contender, Rebalancing rebalancing) {
      this.contender = contender;
      FragmentationMeter meter = new FragmentationMeter(mix, ledger.chipSupply());
      this.context =
          new PlacementContext(SimCluster.EPOCH, Duration.ofDays(1), Policies.asRequested(), meter);
      this.rebalancer =
          rebalancing == null
              ? null
              : new Rebalancer(rebalancing, ledger, contender.context(context));
      this.figures = new ClusterFigures(ledger, meter);
    }

    /** Releases the pods that leave by {@code time}. */
    void departBy(double time) {
      while (!running.isEmpty() && running.peek().timing().departure() <= time) {
        SimPod leaving = running.poll();
        ledger.release(leaving.request().uid()).ifPresent(p -> figures.changed(p.node()));
        allocated -= leaving.computePercent();
        if (rebalancer != null) {
          rebalancer.left(leaving);
        }
      }
    }

    /** Lets the rebalancer cool the hottest node, when it runs. */
    void cool(int i, double now) {
      if (rebalancer != null) {
        rebalancer.cool(i, now).ifPresent(figures::changed);
      }
    }

    /** Places the pod by the policy, else by the rebalancer's moves, else counts it failed. */
    void arrive(SimPod pod, int i, double now) {
      arrived += pod.computePercent();
      Optional<AllocationPlan> plan = contender.choose(pod, ledger, context);
      boolean placed = plan.isPresent() && ledger.apply(plan.get());
      if (placed) {
        contender.placed(pod, plan.get());
        figures.changed(plan.get().node());
      } else if (rebalancer != null) {
        Optional<RebalancePlanner.Plan> moved = rebalancer.place(pod, i + 1, now);
        moved.ifPresent(figures::changed);
        placed = moved.isPresent();
      }
      if (!placed) {
        failed++;
        return;
      }
      allocated += pod.computePercent();
      if (rebalancer != null) {
        rebalancer.placed(pod, now);
      }
      if (pod.timing() != null && pod.timing().departure() != null) {
        running.add(pod);
      }
    }

    /** The figures after {@code pods} arrivals. */
    Sample sample(int pods) {
      return new Sample(
          pods,
          100 * arrived / capacity,
          100 * allocated / capacity,
          100 * figures.fragmentation() / capacity,
          failed,
          rebalancer == null ? 0 : rebalancer.moves(),
          figures.hottest(),
          figures.coolest());
    }
  }

  /**
   * The cluster's fragmentation and each node's allocated AI Core, kept up to date node by node as
   * placements change them.
   */
  private static final class ClusterFigures {
    private final Ledger ledger;
    private final FragmentationMeter meter;
    private final Map<String, Double> fragmentationByNode = new HashMap<>();
    private final Map<String, Double> allocatedByNode = new HashMap<>();
    private double fragmentation;

    ClusterFigures(Ledger ledger, FragmentationMeter meter) {
      this.ledger = ledger;
      this.meter = meter;
      for (NodeState node : ledger.nodes()) {
        fragmentationByNode.put(node.name(), 0.0);
        changed(node.name());
      }
    }

    void changed(String node) {
      NodeState state = ledger.node(node).orElseThrow();
      double now = meter.fragmentation(state);
      fragmentation += now - fragmentationByNode.put(node, now);
      allocatedByNode.put(node, RebalancePlanner.allocatedCompute(state));
    }

    /** Every node a plan moved a pod off or onto. */
    void changed(RebalancePlanner.Plan plan) {
      for (RebalancePlanner.Move move : plan.moves()) {
        changed(move.pod().node());
        changed(move.to().node());
      }
      if (plan.pending() != null) {
        changed(plan.pending().node());
      }
    }

    double fragmentation() {
      return fragmentation;
    }

    double hottest() {
      return allocatedByNode.values().stream().mapToDouble(d -> d).max().orElse(0);
    }

    double coolest() {
      return allocatedByNode.values().stream().mapToDouble(d -> d).min().orElse(0);
    }
  }
}

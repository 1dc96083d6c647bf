package org.vnpu.sim.experiment;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.chip.ChipCatalog;
import org.vnpu.core.fragmentation.WorkloadMix;
import org.vnpu.core.request.ContainerRequest;
import org.vnpu.core.request.PodRequest;
import org.vnpu.sim.SimCluster;
import org.vnpu.sim.SimPod;
import org.vnpu.sim.input.ClusterFile;
import org.vnpu.sim.input.WorkloadFile;

/**
 * What vNPU sharing gains over whole-card allocation: the same pods, in the same order, placed once
 * as requested and once with every share rounded up to a whole card.
 *
 * @param cluster the nodes
 * @param workload the pods as requested
 * @param seed the seed of the arrival order
 */
public record SharingComparison(SimCluster cluster, List<SimPod> workload, long seed) {

  /**
   * The outcome of one variant.
   *
   * @param pods pods that arrived
   * @param placed pods that were placed
   * @param allocatedPercent chip compute reserved, in % of the cluster's
   */
  public record Outcome(int pods, int placed, double allocatedPercent) {}

  /**
   * Both outcomes.
   *
   * @param shared pods as requested
   * @param wholeCards every share rounded up to a whole card
   */
  public record Result(Outcome shared, Outcome wholeCards) {}

  /** The built-in example: a few Atlas 800I A2 and Atlas 300I Duo servers, inference-heavy. */
  public static SharingComparison builtIn(ChipCatalog catalog) {
    return new SharingComparison(
        ClusterFile.read(
            "built-in example cluster", open("/org/vnpu/sim/example-cluster.yaml"), catalog),
        WorkloadFile.read(
            "built-in example workload", open("/org/vnpu/sim/example-workload.yaml"), catalog),
        42);
  }

  public Result run(PlacementPolicy policy) {
    return new Result(outcome(workload, policy), outcome(wholeCards(workload), policy));
  }

  /** A line per pod shape of the workload, for the report. */
  public String describeWorkload() {
    return workload.stream()
        .collect(
            Collectors.groupingBy(
                p -> p.name().replaceAll("-\\d+$", ""),
                java.util.LinkedHashMap::new,
                Collectors.counting()))
        .entrySet()
        .stream()
        .map(e -> e.getValue() + "× " + e.getKey())
        .collect(Collectors.joining(", "));
  }

  private Outcome outcome(List<SimPod> pods, PlacementPolicy policy) {
    Experiment experiment =
        new Experiment(
            cluster,
            pods,
            WorkloadMix.typical(pods.stream().map(SimPod::shape).toList(), 1.0, 10),
            new Protocol(0),
            List.of(policy.wireName()),
            List.of(seed),
            TieBreak.FIRST);
    RunResult run = experiment.run(1, Progress.NONE).get(0);
    return new Outcome(
        pods.size(), pods.size() - run.last().failed(), run.last().allocatedPercent());
  }

  private static List<SimPod> wholeCards(List<SimPod> pods) {
    List<SimPod> rounded = new ArrayList<>();
    for (SimPod pod : pods) {
      PodRequest r = pod.request();
      List<ContainerRequest> containers =
          r.containers().stream()
              .map(
                  c ->
                      new ContainerRequest(
                          c.name(), c.init(), c.count(), 100, null, c.chipTypes(), null))
              .toList();
      rounded.add(
          new SimPod(
              new PodRequest(r.namespace(), r.name(), r.uid(), r.options(), containers),
              pod.host()));
    }
    return rounded;
  }

  private static InputStream open(String resource) {
    InputStream in = SharingComparison.class.getResourceAsStream(resource);
    if (in == null) {
      throw new UncheckedIOException(
          new IOException("built-in resource " + resource + " is missing"));
    }
    return in;
  }
}

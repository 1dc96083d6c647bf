package org.vnpu.sim.report;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.vnpu.sim.experiment.Contenders;
import org.vnpu.sim.experiment.RunResult;

/**
 * Per policy, over seeds: unallocated compute at arrived = 100 %, failed pods, wall time; and the
 * paper's figure where the workload is one the paper ran.
 *
 * @param rows one per policy, in the order run
 */
public record Summary(List<Row> rows) {

  /**
   * One policy.
   *
   * @param policy the contender's name
   * @param unallocated unallocated % of compute at arrived = 100 %
   * @param failedPods pods not placed by the end of the run
   * @param millis wall time of one run
   * @param paper the paper's unallocated % for this policy, when known
   * @param withinPaperRange whether our mean lies in the paper's per-seed range; null without one
   * @param migrations pods moved by rebalancing in the whole run
   * @param migrationsPer100Arrivals pods moved per 100 arrivals up to arrived = 100 % (over the
   *     whole run when it never gets there)
   * @param hottestNode the fullest node's allocated AI Core, in %, averaged over the run
   * @param coolestNode the emptiest node's allocated AI Core, in %, averaged over the run
   */
  public record Row(
      String policy,
      Spread unallocated,
      Spread failedPods,
      Spread millis,
      Spread paper,
      Boolean withinPaperRange,
      Spread migrations,
      Spread migrationsPer100Arrivals,
      Spread hottestNode,
      Spread coolestNode) {}

  public static Summary of(List<RunResult> results, String workload, PaperResults paper) {
    Map<String, List<RunResult>> byPolicy = new LinkedHashMap<>();
    results.forEach(r -> byPolicy.computeIfAbsent(r.policy(), p -> new ArrayList<>()).add(r));
    List<Row> rows = new ArrayList<>();
    byPolicy.forEach(
        (policy, runs) -> {
          Spread unallocated = Spread.of(runs.stream().map(r -> r.unallocatedAt(100)).toList());
          Spread published =
              Optional.ofNullable(paper)
                  .flatMap(
                      p ->
                          Contenders.paper(policy)
                              .flatMap(b -> p.unallocatedAt100(workload, b.paperName())))
                  .orElse(null);
          rows.add(
              new Row(
                  policy,
                  unallocated,
                  Spread.of(runs.stream().map(r -> (double) r.last().failed()).toList()),
                  Spread.of(runs.stream().map(r -> (double) r.millis()).toList()),
                  published,
                  published == null ? null : published.covers(unallocated.mean()),
                  Spread.of(runs.stream().map(r -> (double) r.last().migrations()).toList()),
                  Spread.of(runs.stream().map(r -> r.migrationsPer100ArrivalsAt(100)).toList()),
                  Spread.of(runs.stream().map(RunResult::meanHottestNodePercent).toList()),
                  Spread.of(runs.stream().map(RunResult::meanCoolestNodePercent).toList())));
        });
    return new Summary(rows);
  }

  /**
   * The policy with the least unallocated compute at arrived = 100 %; none when the arrivals never
   * reach it (a replayed workload smaller than the cluster).
   */
  public Optional<Row> best() {
    return rows.stream()
        .filter(r -> !Double.isNaN(r.unallocated().mean()))
        .min((a, b) -> Double.compare(a.unallocated().mean(), b.unallocated().mean()));
  }
}

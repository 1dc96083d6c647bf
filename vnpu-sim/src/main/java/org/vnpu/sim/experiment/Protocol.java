package org.vnpu.sim.experiment;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Random;
import org.vnpu.sim.SimPod;

/**
 * Builds one run's arrivals as the FGD artifact does: the original pods, plus pods drawn uniformly
 * with replacement until the next one would push the total request past {@code tune} × capacity,
 * then shuffled. Deterministic for a seed (java.util.Random, not Go's math/rand: the same protocol,
 * not the same draws). A workload with times is replayed as it is, in order of arrival.
 *
 * @param tune target total request as a multiple of cluster compute capacity (the paper: 1.3)
 */
public record Protocol(double tune) {

  public List<SimPod> arrivals(List<SimPod> original, long capacityPercent, long seed) {
    if (!original.isEmpty() && original.get(0).timing() != null) {
      List<SimPod> timed = new ArrayList<>(original);
      timed.sort(Comparator.comparingDouble(p -> p.timing().arrival()));
      return numbered(timed);
    }
    Random random = new Random(seed);
    List<SimPod> pods = new ArrayList<>(original);
    long total = original.stream().mapToLong(SimPod::computePercent).sum();
    long target = (long) (tune * capacityPercent);
    if (total < target && original.stream().anyMatch(p -> p.computePercent() > 0)) {
      while (true) {
        SimPod drawn = original.get(random.nextInt(original.size()));
        if (total + drawn.computePercent() > target) {
          break;
        }
        total += drawn.computePercent();
        pods.add(drawn);
      }
    }
    Collections.shuffle(pods, random);
    return numbered(pods);
  }

  /** The pods named {@code <name>#<position>}, so that repeated draws stay distinct. */
  private static List<SimPod> numbered(List<SimPod> pods) {
    List<SimPod> named = new ArrayList<>(pods.size());
    for (int i = 0; i < pods.size(); i++) {
      named.add(pods.get(i).named(pods.get(i).name() + "#" + i));
    }
    return named;
  }
}

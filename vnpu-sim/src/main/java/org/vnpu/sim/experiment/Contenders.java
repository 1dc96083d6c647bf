package org.vnpu.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.api.WireValue;
import org.vnpu.sim.baseline.Baselines;

/**
 * Every policy the simulator can compare, by name: the engine's ({@code binpack}, {@code spread},
 * {@code fragmentation-aware}) and the paper's baselines ({@code paper-random}, ..., {@code
 * paper-fgd}).
 */
public final class Contenders {

  private Contenders() {}

  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (PlacementPolicy policy : PlacementPolicy.values()) {
      names.add(policy.wireName());
    }
    Baselines.all().forEach(b -> names.add(b.label()));
    return names;
  }

  /**
   * A fresh contender for one run; {@code seed} drives its random choices, if it makes any, and
   * {@code tieBreak} how a paper baseline chooses among equal scores.
   */
  public static Contender create(String name, long seed, TieBreak tieBreak) {
    Optional<PlacementPolicy> engine = WireValue.parse(PlacementPolicy.class, name);
    if (engine.isPresent()) {
      return new EngineContender(engine.get());
    }
    Baselines baseline = paper(name).orElseThrow(() -> unknown(name));
    Random random = new Random(seed * 31 + name.hashCode());
    return new BaselineContender(baseline.create(random), random, tieBreak);
  }

  /** The paper baseline called {@code name}, if it is one. */
  public static Optional<Baselines> paper(String name) {
    return Baselines.all().stream().filter(b -> b.label().equals(name)).findFirst();
  }

  private static IllegalArgumentException unknown(String name) {
    return new IllegalArgumentException(
        "policy " + name + " is unknown; known: " + String.join(", ", names()));
  }
}

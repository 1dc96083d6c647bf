package org.vnpu.core.policy;

import java.util.EnumMap;
import java.util.Map;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.engine.ChipScorer;
import org.vnpu.core.engine.NodeScorer;
import org.vnpu.core.engine.ScorerRegistry;
import org.vnpu.core.request.PodOptions;

/** The registry of built-in placement policies: every policy a pod may name is listed here. */
public final class Policies {

  /**
   * One policy at both levels.
   *
   * @param node scores nodes
   * @param chip scores chips
   */
  public record Policy(NodeScorer node, ChipScorer chip) {

    static <S extends NodeScorer & ChipScorer> Policy of(S scorer) {
      return new Policy(scorer, scorer);
    }
  }

  private static final Map<PlacementPolicy, Policy> POLICIES = new EnumMap<>(PlacementPolicy.class);

  static {
    POLICIES.put(PlacementPolicy.BINPACK, Policy.of(new BinpackScorer()));
    POLICIES.put(PlacementPolicy.SPREAD, Policy.of(new SpreadScorer()));
    POLICIES.put(PlacementPolicy.FRAGMENTATION_AWARE, Policy.of(new FragmentationAwareScorer()));
  }

  private Policies() {}

  /** The built-in policy called {@code name}. */
  public static Policy of(PlacementPolicy name) {
    return POLICIES.get(name);
  }

  /** Node and chip scorers as each pod's annotations name them. */
  public static ScorerRegistry asRequested() {
    return new ScorerRegistry() {
      @Override
      public NodeScorer nodeScorer(PodOptions options) {
        return of(options.nodePolicy()).node();
      }

      @Override
      public ChipScorer chipScorer(PodOptions options) {
        return of(options.devicePolicy()).chip();
      }
    };
  }

  /** The same scorers for every pod, whatever it names; for comparing policies. */
  public static ScorerRegistry fixed(NodeScorer node, ChipScorer chip) {
    return new ScorerRegistry() {
      @Override
      public NodeScorer nodeScorer(PodOptions options) {
        return node;
      }

      @Override
      public ChipScorer chipScorer(PodOptions options) {
        return chip;
      }
    };
  }
}

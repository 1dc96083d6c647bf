package org.vnpu.core.policy;

import java.util.EnumMap;
import java.util.Map;
import org.vnpu.api.PlacementPolicy;
import org.vnpu.core.engine.Scorer;
import org.vnpu.core.engine.ScorerRegistry;
import org.vnpu.core.request.PodOptions;

/** The registry of built-in placement policies: every policy a pod may name is listed here. */
public final class Policies {

  private static final Map<PlacementPolicy, Scorer> SCORERS = new EnumMap<>(PlacementPolicy.class);

  static {
    SCORERS.put(PlacementPolicy.BINPACK, new BinpackScorer());
    SCORERS.put(PlacementPolicy.SPREAD, new SpreadScorer());
    SCORERS.put(PlacementPolicy.FRAGMENTATION_AWARE, new FragmentationAwareScorer());
  }

  private Policies() {}

  /** The scorer of a named policy. */
  public static Scorer scorer(PlacementPolicy policy) {
    return SCORERS.get(policy);
  }

  /** Node and chip scorers as each pod's annotations name them. */
  public static ScorerRegistry asRequested() {
    return new ScorerRegistry() {
      @Override
      public Scorer nodeScorer(PodOptions options) {
        return scorer(options.nodePolicy());
      }

      @Override
      public Scorer deviceScorer(PodOptions options) {
        return scorer(options.devicePolicy());
      }
    };
  }

  /** The same scorers for every pod, whatever it names; for comparing policies. */
  public static ScorerRegistry fixed(Scorer node, Scorer device) {
    return new ScorerRegistry() {
      @Override
      public Scorer nodeScorer(PodOptions options) {
        return node;
      }

      @Override
      public Scorer deviceScorer(PodOptions options) {
        return device;
      }
    };
  }
}

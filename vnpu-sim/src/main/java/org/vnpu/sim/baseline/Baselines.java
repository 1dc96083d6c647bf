package org.vnpu.sim.baseline;

import java.util.List;
import java.util.Random;
import java.util.function.Function;

/** The paper's policies by the names its result files use. */
public enum Baselines {
  RANDOM("01-Random", RandomPlacement::new),
  DOT_PRODUCT("02-DotProd", random -> new DotProduct()),
  GPU_CLUSTERING("03-GpuClustering", random -> new GpuClustering()),
  GPU_PACKING("04-GpuPacking", random -> new GpuPacking()),
  BEST_FIT("05-BestFit", random -> new BestFit()),
  FGD("06-FGD", random -> new Fgd());

  private final String paperName;
  private final Function<Random, Baseline> factory;

  Baselines(String paperName, Function<Random, Baseline> factory) {
    this.paperName = paperName;
    this.factory = factory;
  }

  /** The name in the paper's result files, e.g. {@code 05-BestFit}. */
  public String paperName() {
    return paperName;
  }

  /** The short name, e.g. {@code paper-bestfit}. */
  public String label() {
    return "paper-" + paperName.substring(3).toLowerCase(java.util.Locale.ROOT);
  }

  /** A fresh instance for one run; {@code random} also breaks ties between equal scores. */
  public Baseline create(Random random) {
    return factory.apply(random);
  }

  public static List<Baselines> all() {
    return List.of(values());
  }
}

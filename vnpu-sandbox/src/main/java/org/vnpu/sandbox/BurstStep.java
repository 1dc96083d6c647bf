package org.vnpu.sandbox;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

final class BurstStep extends ScenarioStep {

  static final String BURST_PREFIX = "infer-";

  private final int burst;
  private final long seed;

  /**
   * @param burst how many inference pods it submits
   * @param seed their sizes are drawn with it
   */
  BurstStep(Context context, int burst, long seed) {
    super(context);
    this.burst = burst;
    this.seed = seed;
  }

  /** The pods of the step. */
  List<String> pods() {
    List<String> pods = new ArrayList<>();
    for (int i = 1; i <= burst; i++) {
      pods.add(String.format(BURST_PREFIX + "%02d", i));
    }
    return pods;
  }

  @Override
  void run() throws InterruptedException {
    Random random = new Random(seed);
    int[] cores = {10, 20, 25, 30, 40};
    int[] memory = {2, 4, 8, 12};
    for (String name : pods()) {
      create(
          DemoPods.inference(
              name,
              cores[random.nextInt(cores.length)],
              memory[random.nextInt(memory.length)],
              "elastic",
              Map.of(),
              Map.of()));
    }
    settle(pods());
    long bound = pods().stream().filter(name -> placed(name) != null).count();
    progress.accept("      " + bound + " of " + burst + " placed");
  }
}

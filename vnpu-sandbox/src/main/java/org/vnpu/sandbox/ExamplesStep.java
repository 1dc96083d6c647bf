package org.vnpu.sandbox;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.vnpu.api.AnnotationKeys;
import org.vnpu.api.payload.VnpuAssignment;

final class ExamplesStep extends ScenarioStep {

  private record Expectation(String promise, Predicate<Placed> holds) {
    private static final String ANYWHERE = "placed";

    static Expectation placed() {
      return new Expectation(ANYWHERE, placed -> placed != null);
    }

    /** Whether the pod may go anywhere, so that it can wait for those that may not. */
    boolean anywhere() {
      return promise.equals(ANYWHERE);
    }
  }

  static final String HARD_SLICE = "duo-slice";

  /** The example files in the order they are submitted, with what each must get. */
  static final Map<String, Expectation> EXAMPLES = examples();

  ExamplesStep(Context context) {
    super(context);
  }

  /** The pods of the step: the examples and the hardware slice. */
  static List<String> pods() {
    List<String> pods = new ArrayList<>(EXAMPLES.keySet());
    pods.add(HARD_SLICE);
    return pods;
  }

  @Override
  void run() throws IOException, InterruptedException {
    List<String> examples = new ArrayList<>(EXAMPLES.keySet());
    // Those that must land on particular chips are settled before the others are submitted: in
    // one batch, which pods a scheduling cycle takes first depends on node locks held a moment
    // earlier, and an unpinned pod could take the only chips a pinned one fits on.
    List<String> particular =
        examples.stream().filter(name -> !EXAMPLES.get(name).anywhere()).toList();
    for (String name : particular) {
      create(DemoPods.example(name));
    }
    create(
        DemoPods.inference(HARD_SLICE, 25, 6, null, Map.of(AnnotationKeys.MODE, "hard"), Map.of()));
    settle(particular);
    settle(List.of(HARD_SLICE));
    List<String> anywhere =
        examples.stream().filter(name -> EXAMPLES.get(name).anywhere()).toList();
    for (String name : anywhere) {
      create(DemoPods.example(name));
    }
    settle(anywhere);
    Placed slice = placed(HARD_SLICE);
    progress.accept("      " + describe(HARD_SLICE));
    check(
        "duo-slice: a hardware template on the 310P3 node in hard mode",
        slice != null && slice.node().equals("duo-hard") && slice.vnpus().get(0).template() != null,
        describe(HARD_SLICE));
    for (String name : examples) {
      Expectation expectation = EXAMPLES.get(name);
      Placed placed = placed(name);
      progress.accept("      " + describe(name));
      check(
          "example " + name + ": " + expectation.promise(),
          expectation.holds().test(placed),
          describe(name));
    }
  }

  private static Map<String, Expectation> examples() {
    Map<String, Expectation> examples = new LinkedHashMap<>();
    examples.put(
        "multi-chip",
        new Expectation(
            "8 whole chips on one node",
            p ->
                p != null
                    && p.vnpus().size() == 8
                    && p.vnpus().stream().allMatch(VnpuAssignment::wholeCard)));
    examples.put(
        "whole-card",
        new Expectation("one whole chip", p -> p != null && p.vnpus().get(0).wholeCard()));
    examples.put(
        "die-pin",
        new Expectation(
            "the chip with the pinned die ID (mixed, chip 0)",
            p -> p != null && p.node().equals("mixed") && p.vnpus().get(0).chipIndex() == 0));
    examples.put(
        "type-pin",
        new Expectation("a 310P3", p -> p != null && p.vnpus().get(0).chipType().equals("310P3")));
    for (String name :
        List.of(
            "soft-slice",
            "memory-only",
            "fixed-share",
            "elastic",
            "best-effort",
            "binpack",
            "spread")) {
      examples.put(name, Expectation.placed());
    }
    examples.put(
        "hard-slice",
        new Expectation(
            "not placed: its 910B3 template needs a hard-mode 910B3 node, the sandbox has none",
            p -> p == null));
    return examples;
  }
}

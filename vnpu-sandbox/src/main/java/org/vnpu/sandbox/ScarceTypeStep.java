package org.vnpu.sandbox;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.vnpu.api.AnnotationKeys;

/**
 * Two pods that accept only 310P3 chips, then a fragmentation-aware pod that accepts any type, then
 * a third 310P3-only pod: the scheduler has seen 310P3 sought by pods that can go nowhere else (the
 * cluster has 6 of them beside 18 910B3), so the flexible pod takes a 910B3 chip and its event says
 * which type it left (ADR 0024), and the later 310P3-only pod is placed. The pods are deleted
 * afterwards.
 */
final class ScarceTypeStep extends ScenarioStep {

  ScarceTypeStep(Context context) {
    super(context);
  }

  @Override
  void run() throws InterruptedException {
    Map<String, String> only310p = Map.of(AnnotationKeys.USE_NPU_TYPE, "310P3");
    List<String> first = List.of("only-310p-1", "only-310p-2");
    for (String name : first) {
      create(DemoPods.inference(name, 10, 2, null, only310p, Map.of()));
    }
    // Placed, not only settled: as the first step, a scheduler may call them unschedulable for a
    // moment while the nodes come up, and the flexible pod must come after their reservations.
    Instant placedBy = Instant.now().plus(SETTLE);
    while (Instant.now().isBefore(placedBy) && first.stream().anyMatch(n -> placed(n) == null)) {
      Thread.sleep(200);
    }
    create(
        DemoPods.inference(
            "flexible",
            10,
            2,
            null,
            Map.of(
                AnnotationKeys.NODE_SCHEDULER_POLICY, "fragmentation-aware",
                AnnotationKeys.DEVICE_SCHEDULER_POLICY, "fragmentation-aware"),
            Map.of()));
    settle(List.of("flexible"));
    create(DemoPods.inference("only-310p-3", 10, 2, null, only310p, Map.of()));
    settle(List.of("only-310p-3"));
    Placed flexible = placed("flexible");
    Instant deadline = Instant.now().plus(Duration.ofSeconds(10));
    while (Instant.now().isBefore(deadline) && events("flexible", "VnpuAllocated").isEmpty()) {
      Thread.sleep(200);
    }
    List<String> said = events("flexible", "VnpuAllocated");
    progress.accept("      " + describe("flexible") + "; " + said);
    checks.add(
        new Scenario.Check(
            "scarce type: a pod that accepts any chip type takes a 910B3 and says it left the"
                + " 310P3 chips to the pods that accept only them",
            flexible != null
                && flexible.vnpus().get(0).chipType().equals("910B3")
                && said.stream().anyMatch(m -> m.contains("left chip type(s) 310P3")),
            describe("flexible") + "; events " + said));
    Placed later = placed("only-310p-3");
    checks.add(
        new Scenario.Check(
            "scarce type: a later pod that accepts only 310P3 is placed on one",
            later != null && later.vnpus().get(0).chipType().equals("310P3"),
            describe("only-310p-3")));
    for (String name : List.of("only-310p-1", "only-310p-2", "flexible", "only-310p-3")) {
      client.pods().inNamespace(Scenario.NAMESPACE).withName(name).delete();
    }
  }
}

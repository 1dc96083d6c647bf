package org.vnpu.sandbox;

import java.io.IOException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.vnpu.kube.PodPhases;

/**
 * Claims end to end (docs/dra.md, "Placement"): two pods of the spread policy, then one of binpack,
 * each with a quarter-chip claim from a template. The extender ranks the emptier DRA node for the
 * second, kube-scheduler's allocator takes the first free quarter in the driver's chip-by-chip
 * order for the third, and the DRA kubelet prepares each claim and starts the container with its
 * CDI devices under the shim, whose quota is the slice's memory.
 */
final class ClaimsStep extends ScenarioStep {

  ClaimsStep(Context context) {
    super(context);
  }

  @Override
  void run() throws IOException, InterruptedException {
    client.resource(DraScenario.template()).create();
    Map<String, String> policies = new LinkedHashMap<>();
    policies.put("dra-first", "spread");
    policies.put("dra-second", "spread");
    policies.put("dra-third", "binpack");
    Map<String, DraScenario.Placed> placed = new LinkedHashMap<>();
    for (Map.Entry<String, String> pod : policies.entrySet()) {
      client.resource(DraScenario.pod(pod.getKey(), pod.getValue())).create();
      Instant deadline = Instant.now().plus(SETTLE);
      while (Instant.now().isBefore(deadline)
          && (DraScenario.device(client, pod.getKey()) == null
              || "Pending".equals(PodPhases.of(get(pod.getKey()))))) {
        Thread.sleep(200);
      }
      DraScenario.Placed device = DraScenario.device(client, pod.getKey());
      placed.put(pod.getKey(), device);
      progress.accept(
          "      "
              + pod.getKey()
              + " ("
              + pod.getValue()
              + "): "
              + (device == null
                  ? "not allocated: " + reason(pod.getKey())
                  : device.node()
                      + " "
                      + device.device()
                      + ", "
                      + PodPhases.of(get(pod.getKey()))));
    }
    DraScenario.Placed first = placed.get("dra-first");
    DraScenario.Placed second = placed.get("dra-second");
    DraScenario.Placed third = placed.get("dra-third");
    checks.add(
        new Scenario.Check(
            "dra: a spread claim goes to the emptier DRA node (the extender ranks it)",
            first != null && second != null && !first.node().equals(second.node()),
            first + " and " + second));
    // Both nodes hold one quarter now: binpack ranks them alike, and kube-scheduler takes either
    // (selectHost samples among the best scores); on it, the allocator takes the used chip first.
    checks.add(
        new Scenario.Check(
            "dra: a binpack claim goes beside one of them, on its chip (the driver's device order)",
            third != null
                && Stream.of(first, second)
                    .filter(Objects::nonNull)
                    .anyMatch(
                        claim -> claim.node().equals(third.node()) && claim.chip() == third.chip()),
            first + ", " + second + " and " + third));
    String log = first == null ? "(not placed)" : log("dra-first");
    checks.add(
        new Scenario.Check(
            "dra: the claim's container runs under the shim with the quarter's 16 GiB",
            log.contains("of 16384 MiB"),
            log));
  }
}

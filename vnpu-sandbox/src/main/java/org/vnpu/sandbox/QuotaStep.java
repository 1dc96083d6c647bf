package org.vnpu.sandbox;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.vnpu.kube.PodPhases;

final class QuotaStep extends ScenarioStep {

  /** The pod of the step. */
  static final String POD = "over-quota";

  QuotaStep(Context context) {
    super(context);
  }

  @Override
  void run() throws IOException, InterruptedException {
    create(
        DemoPods.inference(POD, 20, 4, "elastic", Map.of(), Map.of("WORKLOAD_MEMORY_MIB", "6144")));
    settle(List.of(POD));
    awaitPhase(POD, "Failed", Duration.ofSeconds(20));
    checkQuota();
  }

  private void checkQuota() throws IOException {
    Pod pod = get(POD);
    String output = log(POD);
    String status =
        pod.getStatus() == null
            ? "no status"
            : pod.getStatus().getPhase() + ": " + pod.getStatus().getMessage();
    progress.accept("      " + status + "; its log: " + output);
    checks.add(
        new Scenario.Check(
            "a model larger than its 4 GiB quota is refused device memory",
            "Failed".equals(PodPhases.of(pod)) && output.contains("6144 MiB refused"),
            output));
  }
}

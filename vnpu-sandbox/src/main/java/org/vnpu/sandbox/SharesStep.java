package org.vnpu.sandbox;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.vnpu.api.AnnotationKeys;

final class SharesStep extends ScenarioStep {

  /** The share pair: fixed AI Core percent by pod, both pinned to {@link #SHARED_CHIP}. */
  private static final Map<String, Integer> SHARES =
      new TreeMap<>(Map.of("share-a", 30, "share-b", 60));

  /** The chip the share pair is pinned to, by die ID. */
  static final String SHARED_CHIP = "SIM-mixed-1";

  private static final double SHARE_TOLERANCE = 0.05;

  SharesStep(Context context) {
    super(context);
  }

  /** The pods of the step. */
  static List<String> pods() {
    return List.copyOf(SHARES.keySet());
  }

  @Override
  void run() throws IOException, InterruptedException {
    for (Map.Entry<String, Integer> share : SHARES.entrySet()) {
      create(
          DemoPods.inference(
              share.getKey(),
              share.getValue(),
              8,
              "fixed-share",
              Map.of(AnnotationKeys.USE_NPU_DIE_ID, SHARED_CHIP),
              Map.of()));
    }
    settle(pods());
    measureShares();
  }

  private void measureShares() throws IOException, InterruptedException {
    String metrics = sandbox.node("mixed").metricsUrl();
    Thread.sleep(1000);
    scrape(metrics);
    Thread.sleep(5000);
    Map<String, Double> measured = new TreeMap<>();
    for (MetricSamples.Sample sample :
        MetricSamples.of(scrape(metrics), "vnpu_container_aicore_share_ratio")) {
      String pod = sample.labels().get("pod");
      if (SHARES.containsKey(pod)) {
        measured.put(pod, sample.value());
      }
    }
    List<String> details = new ArrayList<>();
    boolean within = true;
    for (Map.Entry<String, Integer> share : SHARES.entrySet()) {
      double got = measured.getOrDefault(share.getKey(), -1.0);
      within &= Math.abs(got - share.getValue() / 100.0) <= SHARE_TOLERANCE;
      details.add(String.format("%s %.1f %% (%d %%)", share.getKey(), got * 100, share.getValue()));
    }
    String detail = String.join(", ", details);
    progress.accept("      measured by the exporter over 5 s: " + detail);
    checks.add(
        new Scenario.Check(
            "two pods on one chip get their fixed AI Core shares within 5 points", within, detail));
  }
}

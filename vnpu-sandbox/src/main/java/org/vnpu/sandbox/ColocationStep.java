package org.vnpu.sandbox;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.vnpu.api.AnnotationKeys;

/**
 * An online pod (requests at 30 % load, four 250 us kernels each) alone on a chip, then beside an
 * offline pod of back-to-back 8 ms kernels. The online p99 (the median of its one-second windows'
 * p99) may grow by two offline kernels and half: the sandbox shares two cores with every component
 * and pod, so threads wake late; on a quiet chip {@code make -C libvnpu bench-colocation} holds it
 * to one kernel and 10 % (docs/colocation.md). Today's policies let it grow by the offline pod's
 * queue and slices, tens to hundreds of milliseconds. The offline pod must get chip time the online
 * one leaves idle. A phase beside offline work that misses is measured once more: a burst of the
 * sandbox's own load can hold every window of one phase.
 */
final class ColocationStep extends ScenarioStep {

  /** The chip the co-location step pins its online and offline pod to, by die ID. */
  static final String COLOCATED_CHIP = "SIM-a2-train-7";

  /** The offline pod's kernels, in microseconds: the longest an online request waits for. */
  private static final int OFFLINE_KERNEL_US = 8000;

  /** How long each co-location phase is measured. */
  private static final Duration PHASE = Duration.ofSeconds(4);

  /** Phases of the co-location step measured beside offline work, at most, until one holds. */
  private static final int MEASUREMENTS = 2;

  private static final Pattern LATENCY =
      Pattern.compile("latency requests=\\d+ p50_ms=\\S+ p99_ms=(\\S+)");

  ColocationStep(Context context) {
    super(context);
  }

  @Override
  void run() throws IOException, InterruptedException {
    int alone = startPods();
    List<Double> aloneWindows = latencies("online").subList(0, alone);
    double aloneP99 = median(aloneWindows.subList(Math.min(1, alone), alone));
    double allowed = aloneP99 * 1.5 + 2 * OFFLINE_KERNEL_US / 1000.0;
    String metrics = sandbox.node("a2-train").metricsUrl();
    boolean holds = false;
    String detail = "";
    for (int attempt = 1; attempt <= MEASUREMENTS && !holds; attempt++) {
      int from = latencies("online").size();
      scrape(metrics);
      Thread.sleep(PHASE.toMillis());
      double offlineShare = chipShare(scrape(metrics), "offline");
      List<Double> windows = latencies("online");
      double shared = median(windows.subList(Math.min(from + 1, windows.size()), windows.size()));
      holds =
          !Double.isNaN(aloneP99)
              && !Double.isNaN(shared)
              && shared <= allowed
              && offlineShare > 0.2;
      detail =
          String.format(
              "online p99 %.1f ms alone, %.1f ms beside offline work (allowed %.1f ms); offline"
                  + " pod's AI Core share %.0f %%%s",
              aloneP99,
              shared,
              allowed,
              offlineShare * 100,
              attempt > 1 ? " (measurement " + attempt + ")" : "");
      progress.accept("      " + detail);
    }
    checks.add(
        new Scenario.Check(
            "an online pod beside offline work waits about one offline kernel more, and the"
                + " offline pod runs in the time it leaves idle",
            holds,
            detail));
  }

  /**
   * Starts the online pod, lets it run alone for one phase, then starts the offline pod beside it
   * on the same chip; returns how many latency windows the online pod reported alone.
   */
  private int startPods() throws IOException, InterruptedException {
    Map<String, String> pinned = Map.of(AnnotationKeys.USE_NPU_DIE_ID, COLOCATED_CHIP);
    Map<String, String> online = new HashMap<>(pinned);
    online.put(AnnotationKeys.PRIORITY, "online");
    create(
        DemoPods.inference(
            "online",
            50,
            4,
            "elastic",
            online,
            Map.of("WORKLOAD_REQUESTS_PER_SECOND", "300", "WORKLOAD_KERNEL_US", "250")));
    settle(List.of("online"));
    Thread.sleep(PHASE.toMillis());
    int alone = latencies("online").size();
    Map<String, String> offline = new HashMap<>(pinned);
    offline.put(AnnotationKeys.PRIORITY, "offline");
    create(
        DemoPods.inference(
            "offline",
            0,
            4,
            "best-effort",
            offline,
            Map.of("WORKLOAD_KERNEL_US", Integer.toString(OFFLINE_KERNEL_US))));
    settle(List.of("offline"));
    return alone;
  }

  /** The p99 of each one-second window the pod's workload reported so far, in milliseconds. */
  private List<Double> latencies(String name) throws IOException {
    List<Double> windows = new ArrayList<>();
    for (String line : log(name).split("\n")) {
      Matcher matcher = LATENCY.matcher(line);
      if (matcher.find()) {
        windows.add(Double.parseDouble(matcher.group(1)));
      }
    }
    return windows;
  }

  private static double median(List<Double> values) {
    if (values.isEmpty()) {
      return Double.NaN;
    }
    List<Double> sorted = values.stream().sorted().toList();
    return sorted.get(sorted.size() / 2);
  }

  /**
   * What the exporter says the chip's containers of {@code priority} held since its last scrape.
   */
  private double chipShare(String exposition, String priority) {
    for (MetricSamples.Sample sample :
        MetricSamples.of(exposition, "vnpu_chip_aicore_share_ratio")) {
      if (COLOCATED_CHIP.equals(sample.labels().get("die_id"))
          && priority.equals(sample.labels().get("priority"))) {
        return sample.value();
      }
    }
    return 0;
  }
}

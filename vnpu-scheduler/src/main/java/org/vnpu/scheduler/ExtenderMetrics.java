package org.vnpu.scheduler;

import io.prometheus.metrics.config.EscapingScheme;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.CounterWithCallback;
import io.prometheus.metrics.core.metrics.GaugeWithCallback;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;

/**
 * The extender's own metrics, served on {@code /metrics} of the same server: latency per verb,
 * answers per verb and outcome, the engine's rejection reasons, lock refusals and the ledger's
 * size.
 */
final class ExtenderMetrics {

  /** How a call ended. */
  enum Outcome {
    /** The verb was carried out (a fit, a score, a reservation, a bind). */
    OK,
    /** The protocol's answer says no: no fit, a refused reservation or bind. */
    REFUSED,
    /** HTTP 4xx: the request could not be read. */
    BAD_REQUEST,
    /** HTTP 500: a bug or an unreachable API server. */
    ERROR
  }

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final Histogram latency;
  private final Counter answers;

  ExtenderMetrics(Scheduler scheduler) {
    latency =
        Histogram.builder()
            .name("vnpu_scheduler_request_duration_seconds")
            .help("Time to answer one extender call, by verb.")
            .labelNames("verb")
            .classicUpperBounds(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1)
            .register(registry);
    answers =
        Counter.builder()
            .name("vnpu_scheduler_answers_total")
            .help("Extender calls by verb and outcome (ok, refused, bad_request, error).")
            .labelNames("verb", "outcome")
            .register(registry);
    CounterWithCallback.builder()
        .name("vnpu_scheduler_rejections")
        .help("Nodes a filter found unfit, by the engine's reason (e.g. not_enough_memory).")
        .labelNames("reason")
        .callback(
            callback ->
                scheduler
                    .rejections()
                    .forEach(
                        (kind, count) ->
                            callback.call(count, kind.name().toLowerCase(Locale.ROOT))))
        .register(registry);
    CounterWithCallback.builder()
        .name("vnpu_scheduler_lock_refusals")
        .help("Reservations refused because another pod held the node's lock.")
        .callback(callback -> callback.call(scheduler.lockRefusals()))
        .register(registry);
    CounterWithCallback.builder()
        .name("vnpu_scheduler_preemption_victims")
        .help(
            "vNPU pods preemptions offered as victims, by what became of them: evicted (they"
                + " made room on a chip), spared (offline, not needed) or online (never evicted).")
        .labelNames("reason")
        .callback(
            callback ->
                scheduler.preemptionCandidates().forEach((reason, n) -> callback.call(n, reason)))
        .register(registry);
    rebalance(scheduler, "plans", "mode", "Rebalancing plans made, by mode (dry-run, execute).");
    rebalance(scheduler, "moves", "mode", "Pods the rebalancer evicted to move them, by mode.");
    rebalance(
        scheduler,
        "refusals",
        "reason",
        "Rebalancing that did not happen, by reason: no-plan, rate-limit, disruption-budget,"
            + " eviction-failed, ledger-changed, invalid-pod.");
    GaugeWithCallback.builder()
        .name("vnpu_scheduler_ledger_pods")
        .help("Pods whose vNPUs the ledger holds.")
        .callback(callback -> callback.call(scheduler.placements().size()))
        .register(registry);
  }

  /** {@code vnpu_scheduler_rebalance_<what>} from {@link Scheduler#rebalanceCounts}. */
  private void rebalance(Scheduler scheduler, String what, String label, String help) {
    CounterWithCallback.builder()
        .name("vnpu_scheduler_rebalance_" + what)
        .help(help)
        .labelNames(label)
        .callback(
            callback ->
                scheduler
                    .rebalanceCounts()
                    .forEach(
                        (key, n) -> {
                          String[] parts = key.split("\n", 2);
                          if (parts[0].equals(what)) {
                            callback.call(n, parts[1]);
                          }
                        }))
        .register(registry);
  }

  void record(String verb, Outcome outcome, long nanos) {
    latency.labelValues(verb).observe(nanos / 1e9);
    answers.labelValues(verb, outcome.name().toLowerCase(Locale.ROOT)).inc();
  }

  /** The Prometheus text exposition. */
  String text() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try {
      PrometheusTextFormatWriter.create().write(out, registry.scrape(), EscapingScheme.DEFAULT);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toString(StandardCharsets.UTF_8);
  }
}

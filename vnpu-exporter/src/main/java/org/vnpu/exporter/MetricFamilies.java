package org.vnpu.exporter;

import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Metric families in first-use order, each with its data points. */
final class MetricFamilies {
  private final Map<String, GaugeSnapshot.Builder> gauges = new LinkedHashMap<>();
  private final Map<String, CounterSnapshot.Builder> counters = new LinkedHashMap<>();
  private final List<String> order = new ArrayList<>();

  void gauge(String name, String help, Labels labels, double value) {
    gauges
        .computeIfAbsent(
            name,
            n -> {
              order.add(n);
              return GaugeSnapshot.builder().name(n).help(help);
            })
        .dataPoint(
            GaugeSnapshot.GaugeDataPointSnapshot.builder().labels(labels).value(value).build());
  }

  void counter(String name, String help, Labels labels, double value) {
    counters
        .computeIfAbsent(
            name,
            n -> {
              order.add(n);
              return CounterSnapshot.builder().name(n).help(help);
            })
        .dataPoint(
            CounterSnapshot.CounterDataPointSnapshot.builder().labels(labels).value(value).build());
  }

  MetricSnapshots build() {
    List<MetricSnapshot> snapshots = new ArrayList<>();
    for (String name : order) {
      snapshots.add(
          gauges.containsKey(name) ? gauges.get(name).build() : counters.get(name).build());
    }
    return new MetricSnapshots(snapshots);
  }
}

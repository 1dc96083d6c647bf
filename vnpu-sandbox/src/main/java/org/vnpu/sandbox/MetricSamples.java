package org.vnpu.sandbox;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Samples of one metric read from an exporter's Prometheus text exposition, for the scenarios. */
public final class MetricSamples {

  private static final Pattern SAMPLE = Pattern.compile("^(\\w+)\\{([^}]*)\\} (\\S+)$");

  /** One labelled sample. */
  public record Sample(Map<String, String> labels, double value) {}

  private MetricSamples() {}

  /** The labelled samples of {@code metric} in {@code exposition}. */
  public static List<Sample> of(String exposition, String metric) {
    List<Sample> samples = new ArrayList<>();
    for (String line : exposition.split("\n")) {
      Matcher matcher = SAMPLE.matcher(line);
      if (matcher.matches() && matcher.group(1).equals(metric)) {
        Map<String, String> labels = new HashMap<>();
        for (String pair : matcher.group(2).split(",")) {
          String[] parts = pair.split("=", 2);
          labels.put(parts[0], parts[1].replace("\"", ""));
        }
        samples.add(new Sample(labels, Double.parseDouble(matcher.group(3))));
      }
    }
    return samples;
  }
}

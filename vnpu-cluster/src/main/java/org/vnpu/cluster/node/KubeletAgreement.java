package org.vnpu.cluster.node;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the real kubelet and the kubelet emulator did in the same cases, property by property, as
 * the table docs/sandbox.md publishes. The real kubelet is the judge: a row where they differ is
 * the emulator's to fix.
 */
final class KubeletAgreement {

  /** One property of one case on both sides. */
  record Row(String scenario, String property, String real, String emulated) {
    boolean agrees() {
      return real.equals(emulated);
    }
  }

  private final List<Row> rows = new ArrayList<>();

  /**
   * @param real per case, per property, what the real kubelet did
   * @param emulated the same for the emulator
   */
  KubeletAgreement(
      Map<String, Map<String, String>> real, Map<String, Map<String, String>> emulated) {
    Set<String> scenarios = new LinkedHashSet<>(real.keySet());
    scenarios.addAll(emulated.keySet());
    for (String scenario : scenarios) {
      Map<String, String> realSeen = real.getOrDefault(scenario, Map.of());
      Map<String, String> emulatedSeen = emulated.getOrDefault(scenario, Map.of());
      Set<String> properties = new LinkedHashSet<>(realSeen.keySet());
      properties.addAll(emulatedSeen.keySet());
      for (String property : properties) {
        rows.add(
            new Row(
                scenario,
                property,
                realSeen.getOrDefault(property, "(not seen)"),
                emulatedSeen.getOrDefault(property, "(not seen)")));
      }
    }
  }

  List<Row> rows() {
    return List.copyOf(rows);
  }

  boolean agrees() {
    return rows.stream().allMatch(Row::agrees);
  }

  /** The rows as a Markdown table. */
  String table() {
    StringBuilder table =
        new StringBuilder(
            "| case | property | real kubelet | kubelet emulator | agree |\n|---|---|---|---|---|\n");
    String previous = "";
    for (Row row : rows) {
      table
          .append("| ")
          .append(row.scenario().equals(previous) ? "" : row.scenario())
          .append(" | ")
          .append(row.property())
          .append(" | ")
          .append(cell(row.real()))
          .append(" | ")
          .append(row.agrees() ? "same" : cell(row.emulated()))
          .append(" | ")
          .append(row.agrees() ? "yes" : "**no**")
          .append(" |\n");
      previous = row.scenario();
    }
    return table.toString();
  }

  private static String cell(String text) {
    return text.replace("|", "\\|").replace("\n", " ");
  }
}

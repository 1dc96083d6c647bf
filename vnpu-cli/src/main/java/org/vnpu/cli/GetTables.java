package org.vnpu.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/** The tables of {@code vnpu get}: one row per node, chip or pod, with bars on a terminal. */
final class GetTables {

  private static final int BAR_WIDTH = 10;

  private GetTables() {}

  /** The node rows as {@code vnpu get nodes} prints them; {@code wide} adds the chip types. */
  static String nodes(List<GetCommand.NodeRow> rows, boolean wide, Terminal terminal) {
    if (rows.isEmpty()) {
      return "No vNPU node: no node has registered chips with the vNPU device plugin.\n";
    }
    boolean measured = rows.stream().anyMatch(r -> r.measuredAiCorePercent() != null);
    List<String> headers =
        new ArrayList<>(List.of("NODE", "MODE", "CHIPS", "HEALTHY", "AI CORE", "MEMORY", "VNPUS"));
    if (wide) {
      headers.add(2, "TYPES");
    }
    if (measured) {
      headers.addAll(List.of("MEASURED AI CORE", "MEASURED MEMORY"));
    }
    TextTable table = new TextTable(headers.toArray(String[]::new));
    for (GetCommand.NodeRow row : rows) {
      List<Object> cells =
          new ArrayList<>(
              List.of(
                  row.node(),
                  row.mode(),
                  row.chips(),
                  row.healthy(),
                  share(row.aiCorePercent(), terminal),
                  memory(row.memoryUsedMiB(), row.memoryMiB(), terminal),
                  row.vnpus() + " / " + row.vnpuSlots()));
      if (wide) {
        cells.add(2, row.chipTypes());
      }
      if (measured) {
        cells.addAll(measuredCells(row.measuredAiCorePercent(), row.measuredMemoryUsedMiB()));
      }
      table.row(cells.toArray());
    }
    return table.render("");
  }

  /** The chip rows as {@code vnpu get chips} prints them; {@code wide} adds die IDs. */
  static String chips(List<GetCommand.ChipRow> rows, boolean wide, Terminal terminal) {
    if (rows.isEmpty()) {
      return "No vNPU chip: no node has registered chips with the vNPU device plugin.\n";
    }
    boolean measured = rows.stream().anyMatch(r -> r.measuredAiCorePercent() != null);
    List<String> headers =
        new ArrayList<>(
            List.of("NODE", "CHIP", "TYPE", "HEALTH", "AI CORE", "MEMORY", "VNPUS", "PODS"));
    if (wide) {
      headers.add(3, "DIE ID");
    }
    if (measured) {
      headers.addAll(7, List.of("MEASURED AI CORE", "MEASURED MEMORY"));
    }
    TextTable table = new TextTable(headers.toArray(String[]::new));
    for (GetCommand.ChipRow row : rows) {
      List<Object> cells =
          new ArrayList<>(
              List.of(
                  row.node(),
                  row.chip(),
                  row.type(),
                  row.healthy() ? "healthy" : "unhealthy",
                  share(row.aiCorePercent(), terminal),
                  memory(row.memoryUsedMiB(), row.memoryMiB(), terminal),
                  row.vnpus() + " / " + row.vnpuSlots(),
                  row.pods().isEmpty() ? "-" : String.join(",", row.pods())));
      if (wide) {
        cells.add(3, row.dieId());
      }
      if (measured) {
        cells.addAll(7, measuredCells(row.measuredAiCorePercent(), row.measuredMemoryUsedMiB()));
      }
      table.row(cells.toArray());
    }
    return table.render("");
  }

  /** The pod rows as {@code vnpu get pods} prints them; {@code wide} adds die IDs. */
  static String pods(List<GetCommand.PodRow> rows, boolean wide) {
    if (rows.isEmpty()) {
      return "No pod with vNPUs in the chosen namespace (-A for all).\n";
    }
    List<String> headers =
        new ArrayList<>(List.of("NAMESPACE", "POD", "NODE", "CHIPS", "SLICE", "PRIORITY"));
    if (wide) {
      headers.add(4, "DIE IDS");
    }
    TextTable table = new TextTable(headers.toArray(String[]::new));
    for (GetCommand.PodRow row : rows) {
      List<Object> cells =
          new ArrayList<>(
              List.of(
                  row.namespace(),
                  row.pod(),
                  row.node(),
                  row.chips().stream().map(String::valueOf).collect(Collectors.joining(",")),
                  row.slices().stream().distinct().collect(Collectors.joining("; ")),
                  row.priority()));
      if (wide) {
        cells.add(4, String.join(",", row.dieIds()));
      }
      table.row(cells.toArray());
    }
    return table.render("");
  }

  /** A percentage, with a bar after it on a terminal. */
  private static String share(double percent, Terminal terminal) {
    return withBar(percent(percent), percent / 100, terminal);
  }

  private static String memory(long usedMiB, long totalMiB, Terminal terminal) {
    return withBar(
        MemoryText.of(usedMiB) + " / " + MemoryText.of(totalMiB),
        totalMiB == 0 ? 0 : usedMiB / (double) totalMiB,
        terminal);
  }

  private static String withBar(String text, double fraction, Terminal terminal) {
    String bar = terminal.bar(fraction, BAR_WIDTH);
    return bar.isEmpty() ? text : bar + " " + text;
  }

  private static List<String> measuredCells(Double aiCorePercent, Long memoryUsedMiB) {
    return aiCorePercent == null
        ? List.of("-", "-")
        : List.of(percent(aiCorePercent), MemoryText.of(memoryUsedMiB));
  }

  private static String percent(double value) {
    return String.format("%.0f %%", value);
  }
}

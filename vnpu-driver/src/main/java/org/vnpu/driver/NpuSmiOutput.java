package org.vnpu.driver;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsers for the {@code npu-smi} outputs the fallback driver reads. Columns are found by their
 * header names, not their positions, because driver versions add columns.
 */
final class NpuSmiOutput {

  private static final Pattern BUS_ID = Pattern.compile("[0-9A-Fa-f]{4}:[0-9A-Fa-f]{2}:.*");
  private static final Pattern USED_OF_TOTAL = Pattern.compile("(\\d+)\\s*/\\s*(\\d+)");

  private NpuSmiOutput() {}

  /** A compute chip from {@code npu-smi info -m}. */
  record MappedChip(int npuId, int chipId, int logicId, String chipName) {}

  /**
   * A chip row of the {@code npu-smi info} table, with its card's health, power and temperature.
   */
  record TableChip(
      String health,
      int aiCorePercent,
      long memoryUsedMiB,
      long memoryTotalMiB,
      Double powerWatts,
      Double temperatureCelsius) {}

  /** One process of the {@code npu-smi info} process table. */
  record TableProcess(int npuId, int chipId, int pid, long memoryMiB) {}

  /** {@code npu-smi info}: chips keyed by NPU ID and chip ID, and the processes. */
  record Table(Map<List<Integer>, TableChip> chips, List<TableProcess> processes) {}

  /** The compute chips of {@code npu-smi info -m}; MCU rows are left out. */
  static List<MappedChip> mapping(String text) {
    List<MappedChip> chips = new ArrayList<>();
    String[] header = null;
    for (String line : text.split("\n")) {
      String[] cells = line.strip().split("\\s{2,}|\\t+");
      if (line.isBlank()) {
        continue;
      }
      if (header == null) {
        if (line.contains("NPU ID") && line.contains("Chip Name")) {
          header = cells;
        }
        continue;
      }
      Map<String, String> row = row(header, cells);
      String name = row.getOrDefault("Chip Name", "");
      if (name.equalsIgnoreCase("Mcu") || "-".equals(row.get("Chip Logic ID"))) {
        continue;
      }
      int npu = number(row, "NPU ID", line);
      // 950 drivers print no logic ID: one chip per NPU, and the NPU ID is the X of /dev/davinciX.
      int logic = row.containsKey("Chip Logic ID") ? number(row, "Chip Logic ID", line) : npu;
      int chip = row.containsKey("Chip ID") ? number(row, "Chip ID", line) : 0;
      chips.add(new MappedChip(npu, chip, logic, name));
    }
    if (header == null) {
      throw new DriverException(
          "npu-smi info -m printed no header with 'NPU ID' and 'Chip Name': " + text.strip());
    }
    return chips;
  }

  /** The chip rows and the process table of {@code npu-smi info}. */
  static Table table(String text) {
    Map<List<Integer>, TableChip> chips = new HashMap<>();
    List<TableProcess> processes = new ArrayList<>();
    int npu = -1;
    String health = null;
    String[] card = new String[0];
    boolean processSection = false;
    for (String line : text.split("\n")) {
      if (!line.startsWith("|")) {
        continue;
      }
      String[] cells = line.substring(1).split("\\|");
      for (int i = 0; i < cells.length; i++) {
        cells[i] = cells[i].strip();
      }
      if (cells.length < 3) {
        continue;
      }
      if (cells[1].startsWith("Process id")) {
        processSection = true;
        continue;
      }
      String[] first = cells[0].split("\\s+");
      if (processSection) {
        if (first.length == 2 && first[0].matches("\\d+") && cells[1].matches("\\d+")) {
          processes.add(
              new TableProcess(
                  Integer.parseInt(first[0]),
                  Integer.parseInt(first[1]),
                  Integer.parseInt(cells[1]),
                  leadingNumber(cells[cells.length - 1])));
        }
      } else if (BUS_ID.matcher(cells[1]).matches() && npu >= 0 && first[0].matches("\\d+")) {
        chips.put(List.of(npu, Integer.parseInt(first[0])), tableChip(health, card, cells[2]));
      } else if (first.length >= 2 && first[0].matches("\\d+")) {
        npu = Integer.parseInt(first[0]);
        health = cells[1];
        card = cells[2].split("\\s+");
      }
    }
    return new Table(chips, processes);
  }

  /** {@code key : value} lines, as printed by {@code npu-smi info -l} and {@code -t usages}. */
  static Map<String, String> keyValues(String text) {
    Map<String, String> values = new LinkedHashMap<>();
    for (String line : text.split("\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        values.putIfAbsent(line.substring(0, colon).strip(), line.substring(colon + 1).strip());
      }
    }
    return values;
  }

  /** The blocks of {@code npu-smi info -l}, one per NPU, each starting at its {@code NPU ID}. */
  static List<Map<String, String>> npuBlocks(String text) {
    List<Map<String, String>> blocks = new ArrayList<>();
    Map<String, String> block = null;
    for (String line : text.split("\n")) {
      int colon = line.indexOf(':');
      if (colon <= 0) {
        continue;
      }
      String key = line.substring(0, colon).strip();
      String value = line.substring(colon + 1).strip();
      if (key.equals("NPU ID")) {
        block = new LinkedHashMap<>();
        blocks.add(block);
      }
      if (block != null) {
        block.put(key, value);
      }
    }
    return blocks;
  }

  /** The first value among {@code aliases} that is a number; field names vary by version. */
  static int percent(Map<String, String> values, String what, String... aliases) {
    for (String alias : aliases) {
      String value = values.get(alias);
      if (value != null && value.matches("\\d+")) {
        return Integer.parseInt(value);
      }
    }
    throw new DriverException(
        "npu-smi printed no " + what + " (looked for " + String.join(", ", aliases) + ")");
  }

  /** {@code card} holds the card row's "Power(W) Temp(C) ..." values; "NA" where unknown. */
  private static TableChip tableChip(String health, String[] card, String usage) {
    String[] parts = usage.split("\\s+");
    int aiCore = parts.length > 0 && parts[0].matches("\\d+") ? Integer.parseInt(parts[0]) : 0;
    long used = 0;
    long total = 0;
    Matcher pairs = USED_OF_TOTAL.matcher(usage);
    while (pairs.find()) {
      long pairTotal = Long.parseLong(pairs.group(2));
      if (pairTotal > 0) {
        used = Long.parseLong(pairs.group(1));
        total = pairTotal;
      }
    }
    return new TableChip(
        health == null ? "" : health.toUpperCase(Locale.ROOT),
        aiCore,
        used,
        total,
        decimal(card, 0),
        decimal(card, 1));
  }

  private static Double decimal(String[] values, int index) {
    return index < values.length && values[index].matches("\\d+(\\.\\d+)?")
        ? Double.valueOf(values[index])
        : null;
  }

  private static Map<String, String> row(String[] header, String[] cells) {
    Map<String, String> row = new HashMap<>();
    for (int i = 0; i < header.length && i < cells.length; i++) {
      row.put(header[i].strip(), cells[i].strip());
    }
    return row;
  }

  private static int number(Map<String, String> row, String column, String line) {
    String value = row.get(column);
    if (value == null || !value.matches("\\d+")) {
      throw new DriverException(
          "npu-smi info -m: column '" + column + "' is not a number in line: " + line.strip());
    }
    return Integer.parseInt(value);
  }

  private static long leadingNumber(String text) {
    Matcher digits = Pattern.compile("\\d+").matcher(text);
    return digits.find() ? Long.parseLong(digits.group()) : 0;
  }
}

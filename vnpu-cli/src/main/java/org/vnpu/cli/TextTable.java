package org.vnpu.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Pattern;

/** A plain-text table with left-aligned columns separated by two spaces. */
final class TextTable {

  private static final Pattern ANSI = Pattern.compile("\u001b\\[[0-9;]*m");

  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  TextTable(String... headers) {
    this.columns = headers.length;
    rows.add(headers);
  }

  TextTable row(Object... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException(
          "row has " + cells.length + " cells, the table " + columns + " columns");
    }
    rows.add(Arrays.stream(cells).map(String::valueOf).toArray(String[]::new));
    return this;
  }

  /** The table, each line prefixed by {@code indent} and ended by a newline. */
  String render(String indent) {
    int[] widths = new int[columns];
    for (String[] row : rows) {
      for (int i = 0; i < columns; i++) {
        widths[i] = Math.max(widths[i], visibleLength(row[i]));
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < columns; i++) {
        line.append(row[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(widths[i] - visibleLength(row[i]) + 2));
        }
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }

  /** The cell's width on a terminal: its colour codes take none ({@link Terminal#paint}). */
  private static int visibleLength(String cell) {
    return ANSI.matcher(cell).replaceAll("").length();
  }
}

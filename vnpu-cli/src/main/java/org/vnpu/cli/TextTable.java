package org.vnpu.cli;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** A plain-text table with left-aligned columns separated by two spaces. */
final class TextTable {

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
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    StringBuilder out = new StringBuilder();
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder(indent);
      for (int i = 0; i < columns; i++) {
        line.append(i == columns - 1 ? row[i] : String.format("%-" + widths[i] + "s  ", row[i]));
      }
      out.append(line.toString().stripTrailing()).append('\n');
    }
    return out.toString();
  }
}

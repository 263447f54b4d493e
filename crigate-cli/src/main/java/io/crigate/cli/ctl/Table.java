package io.crigate.cli.ctl;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A left-aligned text table laid out like crictl's: every column but the last is at least 20
 * characters wide and keeps 3 spaces after its widest cell.
 */
final class Table {

  private static final int MIN_COLUMN_WIDTH = 20;
  private static final int PADDING = 3;

  private final List<String> headers;
  private final List<List<String>> rows = new ArrayList<>();

  Table(String... headers) {
    this.headers = List.of(headers);
  }

  Table row(String... cells) {
    if (cells.length != headers.size()) {
      throw new IllegalArgumentException(
          "row has %d cells, table has %d columns".formatted(cells.length, headers.size()));
    }
    rows.add(List.of(cells));
    return this;
  }

  void print(PrintWriter out) {
    int[] widths = new int[headers.size()];
    for (int column = 0; column < widths.length - 1; column++) {
      int widest = headers.get(column).length();
      for (List<String> row : rows) {
        widest = Math.max(widest, row.get(column).length());
      }
      widths[column] = Math.max(MIN_COLUMN_WIDTH, widest + PADDING);
    }
    printLine(headers, widths, out);
    rows.forEach(row -> printLine(row, widths, out));
  }

  private static void printLine(List<String> cells, int[] widths, PrintWriter out) {
    StringBuilder line = new StringBuilder();
    for (int column = 0; column < cells.size() - 1; column++) {
      line.append(cells.get(column)).repeat(' ', widths[column] - cells.get(column).length());
    }
    line.append(cells.getLast());
    out.println(line.toString().stripTrailing());
  }
}

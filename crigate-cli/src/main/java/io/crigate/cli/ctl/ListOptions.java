package io.crigate.cli.ctl;

import com.google.protobuf.MessageOrBuilder;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Function;
import java.util.function.Supplier;
import picocli.CommandLine.Option;

/** The output switches every list command shares, and the choice between ids, table and document. */
final class ListOptions {

  @Option(
      names = {"-o", "--output"},
      converter = OutputFormat.Converter.class,
      defaultValue = "table",
      description = "json, yaml or table (default: table).")
  OutputFormat output;

  @Option(names = {"-q", "--quiet"}, description = "Print full ids only, one a line.")
  boolean quiet;

  @Option(names = "--no-trunc", description = "Show full ids.")
  boolean noTrunc;

  /** Prints the ids ({@code -q}), the table, or the list response as a document. */
  <T> void print(
      List<T> items,
      Function<T, String> id,
      Supplier<Table> table,
      Supplier<MessageOrBuilder> response,
      PrintWriter out) {
    if (quiet) {
      items.forEach(item -> out.println(id.apply(item)));
    } else if (output == OutputFormat.TABLE) {
      table.get().print(out);
    } else {
      output.write(ProtoDocuments.tree(response.get()), out);
    }
  }
}

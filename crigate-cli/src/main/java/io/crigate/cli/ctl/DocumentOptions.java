package io.crigate.cli.ctl;

import picocli.CommandLine.Option;

/** The output switch of the inspect commands. */
final class DocumentOptions {

  @Option(
      names = {"-o", "--output"},
      converter = OutputFormat.Converter.class,
      defaultValue = "json",
      description = "json or yaml (default: json).")
  OutputFormat output;
}

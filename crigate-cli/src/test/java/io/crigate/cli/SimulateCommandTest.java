package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class SimulateCommandTest {

  @Test
  void writesCsvMarkdownAndSvgForEveryScorer(@TempDir Path out) throws Exception {
    int rc = Main.commandLine().execute("simulate", "--seeds", "1", "--pods", "200", "--nodes", "5",
        "--apps", "20", "--no-progress", "--out", out.toString());
    assertThat(rc).isZero();
    // header + one row per scorer
    assertThat(Files.readAllLines(out.resolve("results.csv"))).hasSize(4);
    assertThat(Files.readString(out.resolve("results.md"))).contains("| layer-locality |", "| image-locality |");
    assertThat(Files.readString(out.resolve("results.svg"))).startsWith("<svg").contains("resources-only");
  }

  @Test
  void traceNamingAnImageOutsideTheCatalogIsACliError(@TempDir Path dir) throws Exception {
    Path trace = dir.resolve("trace.csv");
    Files.writeString(trace, "at_seconds,pod,image,cpu_millis,memory_mib,duration_seconds\n1,p,nginx:1,100,100,5\n");
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err, true));
    int rc = cli.execute("simulate", "--trace", trace.toString(), "--no-progress", "--out", dir.resolve("o").toString());
    assertThat(rc).isEqualTo(2);
    assertThat(err.toString()).contains("image nginx:1 is not in the simulated catalog");
    assertThat(dir.resolve("o")).doesNotExist();
  }
}

package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
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

  /**
   * One node, two pods of all its CPU, the second arriving 1 s after the first's 10 s run: at 1 MB/s
   * the first pod's pull takes far longer than that, so only a pod that holds its node through its
   * start leaves the second without room.
   */
  @Test
  void podsThatHoldTheirNodeThroughTheirStartLeaveItLater(@TempDir Path dir) throws Exception {
    Path trace = dir.resolve("trace.csv");
    Files.writeString(trace, """
        at_seconds,pod,image,cpu_millis,memory_mib,duration_seconds
        0,first,app-000:1,8000,100,10
        11,second,app-000:1,8000,100,10
        """);
    String[] common = {"simulate", "--trace", trace.toString(), "--nodes", "1", "--bandwidth-mbps", "1",
        "--start-overhead", "2", "--scorers", "resources-only", "--no-progress"};
    assertThat(Main.commandLine().execute(concat(common, "--out", dir.resolve("reported").toString()))).isZero();
    assertThat(Main.commandLine().execute(concat(common, "--hold-node-through-start", "--out",
        dir.resolve("held").toString()))).isZero();

    String[] reported = Files.readAllLines(dir.resolve("reported/results.csv")).get(1).split(",");
    String[] held = Files.readAllLines(dir.resolve("held/results.csv")).get(1).split(",");
    assertThat(reported[3]).as("unschedulable").isEqualTo("0");
    assertThat(held[3]).as("unschedulable").isEqualTo("1");
    // the second start pulls nothing: 2 s of overhead alone
    assertThat(Double.parseDouble(reported[6])).as("mean start").isGreaterThan(2);
    assertThat(Double.parseDouble(reported[7])).as("p95 start").isGreaterThan(Double.parseDouble(reported[6]));
  }

  /** Each of these used to crash the command or run to a meaningless table. */
  @ParameterizedTest
  @CsvSource({
      "--nodes, 0, --nodes 0: must be at least 1",
      "--seeds, 0, --seeds 0: must be at least 1",
      "--apps, 0, --apps 0: must be at least 1",
      "--pods, 0, --pods 0: must be at least 1",
      "--arrivals-per-second, 0, --arrivals-per-second 0: must be above 0",
      "--mean-duration, -1, --mean-duration -1: must be above 0",
      "--image-disk-gb, 0, --image-disk-gb 0: must be above 0",
      "--bandwidth-mbps, 0, --bandwidth-mbps 0: must be above 0",
      "--start-overhead, -0.5, --start-overhead -0.5: must be at least 0",
      "--zipf, -1, --zipf -1: must be at least 0",
  })
  void anOptionOutOfItsRangeIsNamedAndNothingIsWritten(String option, String value, String message, @TempDir Path dir) {
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err, true));
    int rc = cli.execute("simulate", option, value, "--no-progress", "--out", dir.resolve("o").toString());
    assertThat(rc).isEqualTo(2);
    assertThat(err.toString()).isEqualTo("crigate simulate: " + message + System.lineSeparator());
    assertThat(dir.resolve("o")).doesNotExist();
  }

  private static String[] concat(String[] first, String... more) {
    return Stream.concat(Arrays.stream(first), Arrays.stream(more)).toArray(String[]::new);
  }
}

package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

class HooksReconcilerCommandTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "--poll 1s --busy-poll 2s|--poll 1s, --busy-poll 2s: the busy list period PT2S exceeds the idle one PT1S",
      "--poll 1s --busy-poll never|--busy-poll 'never' is not a positive duration",
      "--poll 0s|--poll '0s' is not a positive duration"})
  void aBadListScheduleStopsTheReconcilerBeforeItConnectsNamingTheFlag(String flags, String problem) {
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    String[] args = ("hooks-reconciler --remote-runtime-endpoints default:unix:///nonexistent/containerd.sock " + flags)
        .split(" ");

    int exit = cli.execute(args);

    assertThat(exit).isEqualTo(ServeCommand.EXIT_BAD_CONFIG);
    assertThat(err.toString()).contains("crigate hooks-reconciler: " + problem);
  }
}

package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** A bad list schedule stops hooks-reconciler before it connects to the runtime, naming the flag. */
class HooksReconcilerCommandTest {

  /** What the command printed on stderr, prefixed by its exit code. */
  private static String run(String... flags) {
    List<String> args = new ArrayList<>(List.of("hooks-reconciler", "--remote-runtime-endpoints",
        "default:unix:///nonexistent/containerd.sock"));
    args.addAll(List.of(flags));
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err));
    return cli.execute(args.toArray(String[]::new)) + " " + err;
  }

  @Test
  void aBusyPeriodLongerThanTheIdleOneIsRefused() {
    assertThat(run("--poll", "1s", "--busy-poll", "2s")).startsWith(ServeCommand.EXIT_BAD_CONFIG + " ")
        .contains("crigate hooks-reconciler: --poll 1s, --busy-poll 2s: the busy list period PT2S exceeds the idle one PT1S");
  }

  @Test
  void aPeriodThatIsNotAPositiveDurationIsRefused() {
    assertThat(run("--busy-poll", "never")).startsWith(ServeCommand.EXIT_BAD_CONFIG + " ")
        .contains("crigate hooks-reconciler: --busy-poll 'never' is not a positive duration");
    assertThat(run("--poll", "0s")).startsWith(ServeCommand.EXIT_BAD_CONFIG + " ")
        .contains("crigate hooks-reconciler: --poll '0s' is not a positive duration");
  }
}

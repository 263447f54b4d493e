package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MainTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "serve --bogus|crigate serve: Unknown option: '--bogus'|crigate serve --help",
      "serve --dump-formt=json|crigate serve: Unknown option: '--dump-formt=json'|--dump-format",
      "simulate --seeds=many|crigate simulate: Invalid value for option '--seeds'|crigate simulate --help",
      "webhook --tls-cert=tls.crt|crigate webhook: Missing required option: '--tls-key=<key>'|crigate webhook --help"})
  void usageErrorsNameTheProblemInAFewLinesAndExit2(String line, String problem, String hint) {
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));

    int exit = cli.execute(line.split(" "));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(problem).contains(hint).doesNotContain("Usage:");
    assertThat(err.toString().lines().count()).isLessThanOrEqualTo(5);
  }

  @Test
  void policiesListsEachPolicyWithWhatItDoes() {
    CommandLine cli = Main.commandLine();
    StringWriter out = new StringWriter();
    cli.setOut(new PrintWriter(out));

    int exit = cli.execute("policies");

    assertThat(exit).isZero();
    assertThat(out.toString().lines().map(line -> line.split("\\s+")[0]))
        .containsExactly("none", "static", "static-plus", "topology-aware", "balloons");
    assertThat(out.toString()).contains("exclusive");
  }

  /** Issue 16 item 11: the extender has no authentication, so it is not on every interface unless asked. */
  @Test
  void theExtenderListensOnLoopbackByDefault() {
    ExtenderCommand extender = new ExtenderCommand();
    new CommandLine(extender).parseArgs();
    assertThat(extender.host).isEqualTo("127.0.0.1");
  }
}

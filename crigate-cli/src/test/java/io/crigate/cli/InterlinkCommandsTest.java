package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.interlink.wire.PingResponse;
import io.crigate.spi.CrigateException;
import io.crigate.testsupport.SelfSignedTls;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import picocli.CommandLine;

/** The interLink subcommands refuse what cannot work with one line naming it, before opening anything. */
class InterlinkCommandsTest {

  // a command that wrongly starts serves until SIGTERM: fail instead of hanging the build
  @Timeout(60)
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "interlink-plugin --listen 127.0.0.1:0|crigate interlink-plugin: --config is required",
      "interlink-api --listen 127.0.0.1:0|crigate interlink-api: give exactly one of --plugin-url",
      "interlink-api --plugin-url http://127.0.0.1:1 --config x.yaml|crigate interlink-api: give exactly one of --plugin-url",
      "interlink-api --plugin-url http://127.0.0.1:1 --tls-cert c.pem|--tls-cert and --tls-key go together",
      "virtual-node --node-name n --api-url http://127.0.0.1:1 --listen 127.0.0.1:0|the kubelet API is served over TLS",
      "virtual-node --node-name n --api-url http://127.0.0.1:1|crigate virtual-node: the kubelet API is served over TLS",
      "virtual-node --node-name n --api-url http://127.0.0.1:1 --pod-workers 0|--pod-workers 0: must be at least 1",
      "virtual-node --api-url http://127.0.0.1:1|give the Node's name: --node-name (or interLink's --nodename)",
      "virtual-node --nodename n|give --api-url, or INTERLINKCONFIGPATH naming interLink's InterLinkConfig.yaml",
      "virtual-node --nodename n --api-url http://127.0.0.1:1 --log-level loud|logLevel: unknown level 'loud'",
      "virtual-node --nodename n --api-url http://127.0.0.1:1 --pod-api-server api.example.org|--pod-api-server 'api.example.org' is not HOST:PORT",
      "virtual-node --nodename n --api-url http://127.0.0.1:1 --pod-api-server api:0|--pod-api-server 'api:0' is not HOST:PORT",
      "virtual-node --nodename n --api-url http://127.0.0.1:1 --pod-api-ca /nonexistent/ca.crt|--pod-api-ca /nonexistent/ca.crt cannot be read",
      "virtual-node --nodename n --api-url http://127.0.0.1:1 --pod-api-ca /etc/passwd|--pod-api-ca /etc/passwd holds no PEM certificate"})
  void badSettingsExit2NamingTheProblem(String line, String problem) {
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));

    int exit = cli.execute(line.split(" "));

    assertThat(exit).isEqualTo(ServeCommand.EXIT_BAD_CONFIG);
    assertThat(err.toString()).contains(problem);
  }

  /** The operator reads why: fabric8's own message names only the operation, its cause the refused address. */
  @Timeout(60)
  @Test
  void aVirtualNodeWhoseApiServerCannotBeReachedNamesTheCause(@TempDir Path dir) throws Exception {
    SelfSignedTls.generate(dir);
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));
    UnreachableApi.set();
    try {
      int exit = cli.execute("virtual-node", "--node-name", "n", "--api-url", "http://127.0.0.1:1", "--listen", "127.0.0.1:0",
          "--tls-cert", dir.resolve("tls.crt").toString(), "--tls-key", dir.resolve("tls.key").toString());

      assertThat(exit).isEqualTo(ServeCommand.EXIT_START_FAILED);
      assertThat(err.toString()).startsWith("crigate virtual-node: cannot start: ").contains("Connection refused: /127.0.0.1:1");
    } finally {
      UnreachableApi.clear();
    }
  }

  @Test
  void taintsAreReadAsKubectlWritesThem() {
    assertThat(InProcessPlugin.parseTaints(List.of("site=hpc:NoSchedule", "gpu:NoExecute"))).containsExactly(
        new PingResponse.Taint("site", "hpc", "NoSchedule"), new PingResponse.Taint("gpu", "", "NoExecute"));
    assertThatThrownBy(() -> InProcessPlugin.parseTaints(List.of("site=hpc:Sometimes")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("effect");
  }
}

package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import picocli.CommandLine;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MainTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "serve --bogus|crigate serve: Unknown option: '--bogus'|crigate serve --help",
      "serve --dump-formt=json|crigate serve: Unknown option: '--dump-formt=json'|--dump-format",
      "simulate --seeds=many|crigate simulate: Invalid value for option '--seeds'|crigate simulate --help",
      "webhook --tls-cert=tls.crt|crigate webhook: Missing required option: '--tls-key=<key>'|crigate webhook --help",
      "extender --tls-cert=tls.crt|crigate extender: --tls-cert and --tls-key go together|crigate extender --help",
      "extender --client-ca=ca.crt|crigate extender: --client-ca needs --tls-cert and --tls-key|crigate extender --help",
      "extender --tls-cert=/nonexistent/tls.crt --tls-key=/nonexistent/tls.key|TLS certificate file /nonexistent/tls.crt is not readable|crigate extender --help",
      "extender --max-request-bytes=0|extender request limit must be positive|crigate extender --help",
      "extender --port=70000|extender port must be 0 (any free port) to 65535, got 70000|crigate extender --help",
      "extender --registry-config=/nonexistent/registry.yaml|--registry-config /nonexistent/registry.yaml|crigate extender --help"})
  void usageErrorsNameTheProblemInAFewLinesAndExit2(String line, String problem, String hint) {
    CommandLine cli = Main.commandLine();
    StringWriter err = new StringWriter();
    cli.setErr(new PrintWriter(err));

    int exit = cli.execute(line.split(" "));

    assertThat(exit).isEqualTo(2);
    assertThat(err.toString()).contains(problem).contains(hint).doesNotContain("Usage:");
    assertThat(err.toString().lines().count()).isLessThanOrEqualTo(5);
  }

  /** Start-up: a named subcommand gets a tree of its own; anything else still gets the full tree and its suggestions. */
  @Test
  void aNamedSubcommandIsTheOnlyOneBuiltAndOthersKeepTheFullTree() {
    assertThat(Main.commandLine("nri-plugin").getSubcommands()).containsOnlyKeys("nri-plugin");
    assertThat(Main.commandLine("serve").getSubcommands()).containsOnlyKeys("serve");

    CommandLine misspelt = Main.commandLine("nri-plugn");
    assertThat(misspelt.getSubcommands()).hasSize(12);
    StringWriter err = new StringWriter();
    misspelt.setErr(new PrintWriter(err));
    assertThat(misspelt.execute("nri-plugn")).isEqualTo(2);
    assertThat(err.toString()).contains("nri-plugin");

    CommandLine named = Main.commandLine("nri-plugin");
    StringWriter namedErr = new StringWriter();
    named.setErr(new PrintWriter(namedErr));
    assertThat(named.execute("nri-plugin", "--bogus")).isEqualTo(2);
    assertThat(namedErr.toString()).contains("crigate nri-plugin: Unknown option: '--bogus'");
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

  /** Issue 16 item 11: pods name registries freely, so the extender fetches from none unless told which. */
  @Test
  void theExtenderAllowsNoRegistryUnlessNamed(@TempDir Path dir) throws Exception {
    ExtenderCommand bare = new ExtenderCommand();
    new CommandLine(bare).parseArgs();
    assertThat(bare.registryConfig().allowedRegistries()).isEmpty();
    assertThat(bare.registryConfig().tokenRealms()).containsExactly("auth.docker.io");

    Path file = Files.writeString(dir.resolve("registry.yaml"), """
        allowedRegistries: [ghcr.io]
        tokenRealms: [gitlab.com]
        cachedTokens: 16
        """);
    ExtenderCommand configured = new ExtenderCommand();
    new CommandLine(configured).parseArgs("--registry-config=" + file, "--allow-registry=docker.io", "--token-realm=sso.example.net");
    assertThat(configured.registryConfig().allowedRegistries()).containsExactlyInAnyOrder("ghcr.io", "docker.io");
    assertThat(configured.registryConfig().tokenRealms()).containsExactlyInAnyOrder("gitlab.com", "sso.example.net");
    assertThat(configured.registryConfig().cachedTokens()).isEqualTo(16);
  }
}

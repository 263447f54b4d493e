package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crigate serve} with seed command lines: refusals and warnings before anything starts. */
class SeedServeTest {

  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  /** Subcommands whose tree was built, in order: a seed line must not cost serve the whole tree. */
  final List<String> built = new ArrayList<>();

  int run(String... args) {
    return SeedServe.execute(this::commandLine, args, Map.of("HOME", "/home/jorge"));
  }

  CommandLine commandLine(String first) {
    built.add(first);
    CommandLine cli = Main.commandLine(first);
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    cli.getSubcommands().values().forEach(sub -> {
      sub.setOut(new PrintWriter(out));
      sub.setErr(new PrintWriter(err));
    });
    return cli;
  }

  @Test
  void aFlagCrigateCannotHonourStopsTheStartNamingItAndWhy() {
    int exit = run("serve", "--enable-pod-persistence", "--enable-pod-network", "--socket-path", "/tmp/x.sock");

    assertThat(exit).isEqualTo(ServeCommand.EXIT_BAD_CONFIG);
    assertThat(err.toString().lines().toList()).containsExactly(
        "crigate serve: warning: --enable-pod-persistence: always on: crigate keeps pods and containers in its "
            + "ownership database under the state directory",
        "crigate serve: --enable-pod-network is refused: crigate does not set up CNI networks for Slurm pods; pods on "
            + "a cri backend get the network of that runtime's CNI configuration");
  }

  @Test
  void criRmListPoliciesListsCrigatesPolicies() {
    int exit = run("serve", "--list-policies");

    assertThat(exit).isZero();
    assertThat(out.toString()).contains("static-plus").contains("topology-aware");
    assertThat(built).containsExactly("serve", "policies");
  }

  /** cri-resmgr --reset-config runs crigate policies forget-configmap on --relay-dir, and serves nothing. */
  @Test
  void criRmResetConfigForgetsInTheRelayDirectoryAndExits(@TempDir Path dir) {
    Path relayDir = dir.resolve("cri-relay");
    int exit = run("serve", "--reset-config", "--relay-dir", relayDir.toString());

    assertThat(exit).isZero();
    assertThat(out.toString()).isEqualTo("nothing to forget: no state database in " + relayDir + System.lineSeparator());
    assertThat(built).containsExactly("serve", "policies");
  }

  @Test
  void translatedSettingsReachTheConfigurationCheck() {
    // a translated setting crigate rejects on load shows it came through: an unknown policy name would be refused
    // earlier, so use a bad reservation crigate's own reader names
    int exit = run("serve", "-policy", "static", "--reserved-resources", "cpu=lots", "--runtime-socket", "/nonexistent.sock");

    assertThat(exit).isEqualTo(ServeCommand.EXIT_BAD_CONFIG);
    assertThat(err.toString()).contains("policy.reservedCpus: 'lots' is not a CPU quantity");
  }

  @Test
  void criRmsDashHAndVirtualKubeletsDashDashHelpPrintUsage() {
    // cri-resmgr -h (seed 001) as crigate serve -h; vk --help (seed 002) as crigate virtual-node --help
    assertThat(run("serve", "-h")).isZero();
    assertThat(out.toString()).contains("Usage:").contains("serve").contains("--socket=PATH");
    out.getBuffer().setLength(0);

    assertThat(run("virtual-node", "--help")).isZero();
    assertThat(out.toString()).contains("Usage:").contains("virtual-node").contains("--api-url");
    assertThat(err.toString()).isEmpty();
  }
}

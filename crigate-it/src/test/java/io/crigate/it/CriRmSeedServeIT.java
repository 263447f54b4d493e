package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * CRI Resource Manager's own command lines and configuration files, as its README and repository
 * write them, given to {@code bin/crigate serve} in front of the real containerd. Only the sockets
 * and directories are this test's ({@code --runtime-socket}, {@code --relay-socket},
 * {@code --relay-dir}, CRI Resource Manager's own flags for them). On this two-CPU machine one
 * reserved CPU is CPU 0, chosen as the kubelet chooses it: a Guaranteed one-CPU container gets CPU 1
 * alone and a Burstable one runs on CPU 0, which stays in the shared pool.
 */
class CriRmSeedServeIT {

  static final Infra infra = Infra.fromEnvironment();

  /** CRI Resource Manager's sample-configs/static-policy.cfg, verbatim: options one per line, without dashes. */
  static final Path SAMPLE_STATIC_POLICY_CFG =
      Infra.repositoryRoot().resolve("crigate-cli/src/test/resources/seeds/cri-resmgr/static-policy.cfg");

  /** The README, "Running the relay with policies enabled", second example, verbatim. */
  static final String README_STATIC_PLUS = """
      policy:
        ReservedResources:
          CPU: 1
        Active: static-plus
      """;

  @TempDir
  Path work;
  @RegisterExtension
  final PerTestCrigate crigate = new PerTestCrigate();
  private PolicyPods pods;

  private void serve(String... criRmArguments) {
    List<String> arguments = new ArrayList<>(List.of(criRmArguments));
    arguments.addAll(List.of("--runtime-socket", infra.containerdA(), "--relay-socket", work.resolve("crigate.sock").toString(),
        "--relay-dir", work.resolve("state").toString()));
    pods = crigate.adopt(CrigateProcess.serve(work, Map.of(), arguments), work.resolve("pods"), infra);
  }

  private void assertTheReservedCpuIsKeptOutOfExclusiveCpusets() {
    String guaranteed = pods.startShell("guaranteed", Map.of("cpu", "1", "memory", "64Mi"), Map.of("cpu", "1", "memory", "64Mi"));
    String burstable = pods.startShell("burstable", Map.of("cpu", "100m"), Map.of());
    assertThat(pods.allowedCpus(guaranteed)).as(crigate.process().logTail()).isEqualTo("1");
    assertThat(pods.allowedCpus(burstable)).isEqualTo("0");
  }

  private List<String> logLines(String level) throws Exception {
    return Files.readAllLines(crigate.process().log()).stream().filter(line -> line.matches("\\S+ " + level + " +\\[.*")).toList();
  }

  @Test
  void reservedResourcesOnTheCommandLineReservesTheKubeletsCpuAndLoggerDebugStarTurnsOnDebugLines() throws Exception {
    // cri-resmgr -policy static --reserved-resources cpu=1 --logger-debug '*' (the README's full-debugging flag)
    serve("-policy", "static", "--reserved-resources", "cpu=1", "--logger-debug", "*");

    assertTheReservedCpuIsKeptOutOfExclusiveCpusets();
    assertThat(logLines("DEBUG")).as("debug lines in crigate's log").isNotEmpty();
  }

  @Test
  void theSampleOneOptionPerLineFileSetsPolicyReservationAndDumpAndLoggerLevelWarnLeavesOnlyWarnings() throws Exception {
    Path dump = work.resolve("cri.dump");
    // cri-resmgr -config static-policy.cfg, with the dump written to a file and CRI-RM's --logger-level
    serve("-config", SAMPLE_STATIC_POLICY_CFG.toString(), "-dump-file", dump.toString(), "--logger-level", "warn");

    assertTheReservedCpuIsKeptOutOfExclusiveCpusets();
    // "dump = off:.*" then "full:" for the lifecycle calls: CreateContainer is dumped in full, Version is not
    String dumped = Files.readString(dump);
    assertThat(dumped).containsPattern("method: \\S*CreateContainer").contains("response:").doesNotContainPattern("method: \\S*Version");
    // "logger-debug = policy,static" names CRI Resource Manager's components: one warning, no debug lines
    assertThat(Files.readAllLines(crigate.process().log())).filteredOn(line -> line.startsWith("crigate serve: warning: "))
        .singleElement().asString().contains("logger-debug");
    assertThat(logLines("(DEBUG|INFO)")).as("with --logger-level warn").isEmpty();
  }

  @Test
  void theReadmesStaticPlusConfigurationAsForceConfigPinsBesideOneReservedCpu() throws Exception {
    Path config = Files.writeString(work.resolve("static-plus.yaml"), README_STATIC_PLUS);
    serve("--force-config", config.toString());

    assertTheReservedCpuIsKeptOutOfExclusiveCpusets();
    assertThat(Files.readString(crigate.process().log())).contains("static-plus policy: container ").contains("/guaranteed/0 gets exclusive CPUs 1");
  }
}

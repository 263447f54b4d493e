package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.VersionRequest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The seed systems' own command lines, as their READMEs write them, run as {@code bin/crigate serve}
 * against the real containerd: only the paths are this test's.
 */
class SeedCommandLineIT {

  static final Infra infra = Infra.fromEnvironment();

  @TempDir
  Path work;

  @Test
  void criRmReadmeDumperCommandLineDumpsEveryCallInFull() throws Exception {
    Path dump = work.resolve("cri.dump");
    // cri-resmgr -policy null -dump 'reset,full:.*' -dump-file /tmp/cri.dump, relaying to containerd
    try (Served served = serve(Map.of(), "-policy", "null", "-dump", "reset,full:.*", "-dump-file", dump.toString(),
        "--runtime-socket", infra.containerdA(), "--relay-socket", work.resolve("crigate.sock").toString(),
        "--relay-dir", work.resolve("state").toString())) {
      served.cri.runtime().version(VersionRequest.getDefaultInstance());
      await().atMost(Duration.ofSeconds(30)).until(() -> Files.exists(dump) && Files.readString(dump).contains("Version"));
      assertThat(Files.readString(dump)).containsPattern("method: \\S*Version").contains("response:");
    }
  }

  @Test
  void multiCriUnitCommandLineServesWithOneWarningPerMeaninglessFlag() throws Exception {
    // the unit's Environment=CRI_SLURM_BUILD_IN_CLUSTER=true and its ExecStart, multi-cri -v 3 --socket-path …
    // --remote-runtime-endpoints default:…, plus --enable-pod-persistence
    try (Served served = serve(Map.of("CRI_SLURM_MOUNT_PATH", work.resolve("slurm").toString(),
        "CRI_SLURM_BUILD_IN_CLUSTER", "true"), "-v", "3",
        "--socket-path", work.resolve("crigate.sock").toString(), "--root-dir", work.resolve("state").toString(),
        "--remote-runtime-endpoints", "default:" + infra.containerdA(), "--enable-pod-persistence")) {
      assertThat(served.cri.runtime().version(VersionRequest.getDefaultInstance()).getRuntimeName()).isNotEmpty();
      assertThat(Files.readAllLines(served.log)).filteredOn(line -> line.contains("warning"))
          .containsExactly("crigate serve: warning: --enable-pod-persistence: always on: crigate keeps pods and "
              + "containers in its ownership database under the state directory",
              "crigate serve: warning: CRI_SLURM_BUILD_IN_CLUSTER: crigate's slurm backend runs images with the "
              + "configured runner (apptainer, singularity, enroot, podman) where the job runs; there is no separate "
              + "image build");
    }
  }

  @Test
  void aRefusedFlagStopsTheStartNamingIt() throws Exception {
    List<String> command = List.of(Infra.repositoryRoot().resolve("bin/crigate").toString(), "serve",
        "--socket-path", work.resolve("crigate.sock").toString(), "--enable-pod-network");
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    assertThat(process.waitFor(90, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).isEqualTo(2);
    assertThat(new String(process.getInputStream().readAllBytes()))
        .contains("crigate serve: --enable-pod-network is refused: crigate does not set up CNI networks");
    assertThat(work.resolve("crigate.sock")).doesNotExist();
  }

  record Served(Process process, CriConnection cri, Path log) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      cri.close();
      process.destroy();
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(15, TimeUnit.SECONDS);
      }
    }
  }

  private Served serve(Map<String, String> environment, String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Infra.repositoryRoot().resolve("bin/crigate").toString(), "serve"));
    command.addAll(List.of(args));
    Path log = work.resolve("crigate.log");
    ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
    builder.environment().putAll(environment);
    Process process = builder.start();
    CriConnection cri = CriConnection.open("unix://" + work.resolve("crigate.sock"));
    await("crigate serving").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(200))
        .failFast("crigate exited: " + log, () -> !process.isAlive())
        .ignoreExceptions()
        .until(() -> cri.runtime(Duration.ofSeconds(2)).version(VersionRequest.getDefaultInstance()) != null);
    return new Served(process, cri, log);
  }
}

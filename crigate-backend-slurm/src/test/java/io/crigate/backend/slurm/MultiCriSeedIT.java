package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * multi-cri's README examples (the seed document of issue 19) run through the slurm backend on the
 * real single-node Slurm, with multi-cri's layout: the backend's workDir is $HOME/$CRI_SLURM_MOUNT_PATH.
 */
class MultiCriSeedIT {

  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path tmp;
  private SlurmBackend backend;
  private Path claimDir;

  @AfterEach
  void close() {
    if (backend != null) {
      backend.close();
    }
    if (claimDir != null) {
      SandboxDirectory.delete(claimDir); // results outlive the pod by design; the test leaves none behind
    }
  }

  private ContainerStatus runToTheEnd(String containerId) {
    start(backend, containerId);
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, containerId).getState() == ContainerState.CONTAINER_EXITED);
    return status(backend, containerId);
  }

  private static String awaitLog(Path log, String text) {
    await().atMost(Duration.ofSeconds(15)).until(() -> Files.exists(log) && Files.readString(log).contains(text));
    try {
      return Files.readString(log);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }

  /**
   * "Slurm simple batch job with volume": the claim nfs-vol1 mounted at "multicri", JOB_QUEUE, and
   * the README's command in the shell form crigate asks for (sleep shortened from 60 to 1).
   */
  @Test
  void theReadmesVolumeJobKeepsItsResultsUnderTheClaimAndItsLogSaysWhere() throws Exception {
    backend = backend(settings(Transport.LOCAL), tmp.resolve("state"));
    String claim = "nfs-vol1-" + tmp.getFileName(); // one claim directory per run on the shared work dir
    claimDir = Path.of(env("CRIGATE_SLURM_WORKDIR"), claim);
    ContainerConfig container = container("job-slurm-container",
        List.of("/bin/sh", "-c", "sleep 1 && ls / && pwd > where.txt"), Map.of("JOB_QUEUE", "debug"))
        .toBuilder().addMounts(Mount.newBuilder().setContainerPath("multicri")
            .setHostPath("/var/lib/kubelet/pods/job-perl-slurm-vol-pod/volumes/kubernetes.io~nfs/" + claim)).build();
    String[] ids = create(backend, pod("job-perl-slurm-vol-pod", tmp.resolve("logs"), Map.of()), container);

    assertThat(runToTheEnd(ids[1]).getReason()).isEqualTo("Completed");

    Path results = claimDir.resolve(ids[0]).resolve(ids[1]);
    assertThat(Files.readString(results.resolve("where.txt"), StandardCharsets.UTF_8).strip()).isEqualTo(results.toString());
    String log = awaitLog(tmp.resolve("logs/job-slurm-container/0.log"), " stdout F bin");
    assertThat(log.lines().findFirst().orElseThrow()).endsWith((" stdout F crigate: volume %s is mounted at multicri; "
        + "this container's results are in %s/%s of the volume (%s on the cluster)").formatted(claim, ids[0], ids[1], results));

    backend.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
    backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
    assertThat(Path.of(env("CRIGATE_SLURM_WORKDIR"), ids[0])).doesNotExist();
    assertThat(results.resolve("where.txt")).exists();
  }

  /**
   * The README's "Container environment variables", with the values this one-node, two-CPU
   * cluster can grant: Slurm's own record of the job shows each, and CLUSTER_CONFIG runs first.
   */
  @Test
  void theReadmesJobVariablesShapeTheJobSlurmRunsAndClusterConfigRunsFirst() throws Exception {
    backend = backend(settings(Transport.LOCAL), tmp.resolve("state"));
    Map<String, String> env = Map.of("JOB_QUEUE", "debug", "JOB_NUM_NODES", "1", "JOB_NUM_CORES", "2",
        "JOB_NUM_TASKS_NODE", "2", "JOB_NUM_CORES_NODE", "2", "JOB_CUSTOM_CONFIG", "SBATCH_TIMELIMIT=5",
        "CLUSTER_CONFIG", "export GREETING=from-cluster-config");
    String[] ids = create(backend, pod("job-perl-slurm-pod", tmp.resolve("logs"), Map.of()),
        container("job-slurm-container", List.of("/bin/sh", "-c", "echo \"greeting=$GREETING\""), env));

    assertThat(runToTheEnd(ids[1]).getReason()).isEqualTo("Completed");

    List<String> jobs = jobsNamed(SlurmClient.NAME_PREFIX + ids[1]);
    assertThat(jobs).hasSize(1);
    Process scontrol = new ProcessBuilder("scontrol", "show", "job", jobs.getFirst().strip()).redirectErrorStream(true).start();
    String job = new String(scontrol.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(scontrol.waitFor()).as(job).isZero();
    assertThat(job).contains("Partition=debug").contains("NumNodes=1").contains("NumCPUs=2").contains("NumTasks=2")
        .contains("MinCPUsNode=2").contains("TimeLimit=00:05:00");
    assertThat(awaitLog(tmp.resolve("logs/job-slurm-container/0.log"), "greeting=")).contains(" stdout F greeting=from-cluster-config");
  }

  /**
   * JOB_GPU with the README's own example, {@code gpu:kepler:2}. This cluster has no GPU, so Slurm
   * refuses it: the refusal shows the request reached sbatch as {@code --gres}, and nothing runs.
   */
  @Test
  void theReadmesJobGpuReachesSbatchAsItsGresRequest() throws Exception {
    backend = backend(settings(Transport.LOCAL), tmp.resolve("state"));
    String[] ids = create(backend, pod("job-gpu-pod", tmp.resolve("logs"), Map.of()),
        container("job-slurm-container", List.of("true"), Map.of("JOB_GPU", "gpu:kepler:2")));

    assertThat(catchThrowable(() -> start(backend, ids[1]))).isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("sbatch rejected job").hasMessageContaining("generic resource (gres)");
    assertThat(jobsNamed(SlurmClient.NAME_PREFIX + ids[1])).isEmpty();
  }

  /**
   * The README's MPI job ("Slurm job with MPI"), its environment as written: MPI_VERSION, MPI_FLAGS
   * "-np 2", the cluster login from the Secret (here slurm-up.sh's user crigate-hpc on this host's
   * sshd; Open MPI refuses to run as root, which the backend's own local transport is),
   * CLUSTER_CONFIG and JOB_QUEUE, with the image and {@code command: ["ls", "/"]}. Open MPI 4 from
   * Debian runs under Slurm 22.05 here (scripts/infra/install-deps.sh): two ranks, so the listing
   * is there twice, and a second container of the pod prints each rank's place in the world.
   */
  @Test
  void theReadmesMpiJobRunsItsCommandOnceForEachOfTheRanksMpiFlagsAskFor() throws Exception {
    ObjectNode settings = settings(Transport.LOCAL);
    settings.putObject("containerLogins").put("knownHostsFile", env("CRIGATE_SSH_KNOWN_HOSTS"));
    backend = backend(settings, tmp.resolve("state"));
    Map<String, String> readme = Map.of("MPI_VERSION", "1.10.2", "MPI_FLAGS", "-np 2",
        "CLUSTER_USERNAME", env("CRIGATE_SSH_PASSWORD_USER"),
        "CLUSTER_PASSWORD", Files.readString(Path.of(env("CRIGATE_SSH_PASSWORD_FILE"))),
        "CLUSTER_HOST", "127.0.0.1", "CLUSTER_PORT", env("CRIGATE_SSH_PORT"),
        "CLUSTER_CONFIG", "echo cluster-config-ran", "JOB_QUEUE", "debug");
    PodSandboxConfig pod = pod("job-perl-slurm-mpi", tmp.resolve("logs"), Map.of());
    ContainerConfig job = container("job-slurm-container", List.of("ls", "/"), readme).toBuilder()
        .setImage(ImageSpec.newBuilder().setImage("multicri/docker.perl:latest")).build();
    String[] ids = create(backend, pod, job);
    String ranks = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(ids[0]).setSandboxConfig(pod)
        .setConfig(container("ranks", List.of("/bin/sh", "-c", "echo rank=$OMPI_COMM_WORLD_RANK/$OMPI_COMM_WORLD_SIZE"),
            readme)).build()).getContainerId();

    assertThat(runToTheEnd(ids[1]).getReason()).isEqualTo("Completed");
    assertThat(runToTheEnd(ranks).getReason()).isEqualTo("Completed");

    Path log = tmp.resolve("logs/job-slurm-container/0.log");
    awaitLog(log, "cluster-config-ran");
    await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> {
      String listing = Files.readString(log);
      // "bin" begins the listing, alone or, as Open MPI gives ranks a terminal, its first row of columns
      assertThat(listing.lines().filter(line -> line.matches(".* stdout F bin(\\s.*)?"))).as(listing).hasSize(2);
      assertThat(listing.lines().filter(line -> line.endsWith(" stdout F cluster-config-ran"))).as(listing).hasSize(1);
    });
    String world = awaitLog(tmp.resolve("logs/ranks/0.log"), "rank=1/2");
    assertThat(world).contains(" stdout F rank=0/2").contains(" stdout F rank=1/2");
    String slurmJob = jobsNamed(SlurmClient.NAME_PREFIX + ids[1]).getFirst().strip();
    Process scontrol = new ProcessBuilder("scontrol", "show", "job", slurmJob).redirectErrorStream(true).start();
    String record = new String(scontrol.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(scontrol.waitFor()).as(record).isZero();
    assertThat(record).contains("NumTasks=2").contains("Partition=debug").containsPattern("UserId=" + env("CRIGATE_SSH_PASSWORD_USER") + "\\(");
  }
}

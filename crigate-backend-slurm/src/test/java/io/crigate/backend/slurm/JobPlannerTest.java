package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

class JobPlannerTest {

  private static final SlurmSettings SETTINGS = SlurmSettings.parse("test", new ObjectMapper().valueToTree(Map.of(
      "workDir", "/shared",
      "flavors", Map.of("small", Map.of("flags", List.of("--partition=small", "--time=10", "--mem=100M"))),
      "defaultFlavor", "small")));

  private final JobPlanner planner = new JobPlanner(SETTINGS, ImageRunner.NONE);

  private static ContainerConfig.Builder container(Map<String, String> env) {
    ContainerConfig.Builder config = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("c"))
        .setImage(ImageSpec.newBuilder().setImage("busybox"))
        .addCommand("run").addArgs("it");
    env.forEach((k, v) -> config.addEnvs(KeyValue.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(v))));
    return config;
  }

  private static PodSandboxConfig pod(Map<String, String> annotations) {
    return PodSandboxConfig.newBuilder().putAllAnnotations(annotations).build();
  }

  @Test
  void laterSourcesOverrideEarlierOnes() {
    ContainerConfig config = container(Map.of("JOB_QUEUE", "gpu", "JOB_NUM_NODES", "2", "JOB_GPU", "gpu:1"))
        .setLinux(LinuxContainerConfig.newBuilder().setResources(LinuxContainerResources.newBuilder()
            // 150000/100000 = 1.5 cores, rounded up to 2 CPUs; 1.5 MiB rounds up to 2M
            .setCpuQuota(150_000).setCpuPeriod(100_000).setMemoryLimitInBytes(1024 * 1024 * 3 / 2)))
        .build();

    JobPlan plan = planner.plan(config, pod(Map.of(InterLinkFlags.FLAGS, "--time=30 --partition=annotated")), "p", "cid");

    // flavor gives partition/time/mem, resources override mem, the annotation overrides time and
    // partition, and JOB_QUEUE (container env, strongest) overrides the partition again
    assertThat(plan.options().asMap()).containsEntry("partition", "gpu").containsEntry("time", "30")
        .containsEntry("mem", "2M").containsEntry("cpus-per-task", "2").containsEntry("nodes", "2")
        .containsEntry("gres", "gpu:1");
  }

  /** interLink's busyecho_k8s.yaml (Cloud-PG, examples/interlink_mock/payloads), its annotation as written. */
  static final String BUSYECHO_FLAGS = "-A INF23_lhc_0  --job-name=TEST_KNOC -p m100_usr_prod -t 1440 --gres=\"gpu:0\" --cpus-per-task=1";

  @Test
  void busyechosKnocFlagsAreReadWithTheirQuotesRemovedAndTheJobNameDropped() {
    JobPlan plan = planner.plan(container(Map.of()).build(), pod(Map.of(InterLinkFlags.KNOC_FLAGS, BUSYECHO_FLAGS)), "p", "cid");

    assertThat(plan.options().asMap()).containsEntry("account", "INF23_lhc_0").containsEntry("partition", "m100_usr_prod")
        .containsEntry("time", "1440").containsEntry("gres", "gpu:0").containsEntry("cpus-per-task", "1")
        .doesNotContainKey("job-name");
  }

  @Test
  void theVkAnnotationWinsOverKnocsAndAJobNameIsDroppedInEveryForm() {
    JobPlan plan = planner.plan(container(Map.of()).build(), pod(Map.of(InterLinkFlags.FLAGS, "-J one -Jtwo --job-name=three --time=5",
        InterLinkFlags.KNOC_FLAGS, "--time=7")), "p", "cid");

    assertThat(plan.options().asMap()).containsEntry("time", "5").doesNotContainKey("job-name");
    assertThatThrownBy(() -> planner.plan(container(Map.of()).build(), pod(Map.of(InterLinkFlags.KNOC_FLAGS, "--gres=\"gpu:0")),
        "p", "cid")).isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("annotation slurm-job.knoc.io/flags: the double quote opened in '--gres=\"gpu:0' is never closed");
  }

  @Test
  void multiCriReadmesShellChainIsRefusedNamingTheShellFormAndTheShellFormRuns() {
    // multi-cri's README, "Slurm simple batch job with volume": command: ["sleep", "60", "&&", "ls", "/"]
    ContainerConfig readme = ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("job-slurm-container"))
        .setImage(ImageSpec.newBuilder().setImage("multicri/docker.perl.img:latest"))
        .addAllCommand(List.of("sleep", "60", "&&", "ls", "/")).build();
    assertThatThrownBy(() -> planner.plan(readme, pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("container job-slurm-container: the command [sleep, 60, &&, ls, /] has a lone '&&'")
        .hasMessageContaining("Write command: [\"/bin/sh\", \"-c\", \"sleep 60 && ls /\"]");

    ContainerConfig shell = readme.toBuilder().clearCommand().addAllCommand(List.of("/bin/sh", "-c", "sleep 60 && ls /")).build();
    assertThat(planner.plan(shell, pod(Map.of()), "p", "cid").command()).containsExactly("/bin/sh", "-c", "sleep 60 && ls /");
  }

  @Test
  void multiCriCoreAndTaskVariablesBecomeTheirSbatchOptions() {
    // multi-cri's README: JOB_NUM_CORES_NODE, JOB_NUM_CORES and JOB_NUM_TASKS_NODE in the pod spec's env
    ContainerConfig config = container(Map.of("JOB_NUM_CORES_NODE", "4", "JOB_NUM_CORES", "8",
        "JOB_NUM_TASKS_NODE", "2")).build();

    JobPlan plan = planner.plan(config, pod(Map.of()), "p", "cid");

    assertThat(plan.options().asMap()).containsEntry("mincpus", "4").containsEntry("ntasks", "8")
        .containsEntry("ntasks-per-node", "2");
  }

  @Test
  void multiCriVolumeMountKeepsResultsUnderTheClaimPerSandboxAndContainerAndTheLogSaysWhere() {
    // multi-cri's README, "Slurm simple batch job with volume": volumeMounts: [{name: my-pvc-nfs,
    // mountPath: "multicri"}] with claim nfs-vol1; the kubelet's host path ends in the volume's name
    ContainerConfig readme = container(Map.of()).addMounts(Mount.newBuilder().setContainerPath("multicri")
        .setHostPath("/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~nfs/nfs-vol1")).build();

    JobPlan plan = planner.plan(readme, pod(Map.of()), "p", "cid");
    String script = JobScript.render(plan, "cid", "p");

    assertThat(plan.workingDir()).isEqualTo("/shared/nfs-vol1/p/cid");
    String announcement = "crigate: volume nfs-vol1 is mounted at multicri; this container's results are in p/cid "
        + "of the volume (/shared/nfs-vol1/p/cid on the cluster)";
    assertThat(plan.results()).contains(new JobPlan.Results("/shared/nfs-vol1/p/cid", announcement));
    // made by the job (only the cluster has the volume), printed first so the pod's log names it
    assertThat(script).contains("mkdir -p -- '/shared/nfs-vol1/p/cid' || exit 127\nprintf '%s\\n' "
        + ShellQuote.quote(announcement) + "\n");
    // another mount leaves the job in crigate's own directory of the container
    ContainerConfig other = container(Map.of()).addMounts(Mount.newBuilder().setContainerPath("/data")
        .setHostPath("/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~nfs/nfs-vol1")).build();
    JobPlan plain = planner.plan(other, pod(Map.of()), "p", "cid");
    assertThat(plain.workingDir()).isEqualTo("/shared/p/cid");
    assertThat(plain.results()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/", "/var/lib/kubelet/pods/uid-1/volumes/kubernetes.io~nfs/.images", "/volumes/nfs\u0000vol1"})
  void aMultiCriMountWhoseHostPathNamesNoVolumeIsRefusedNamingIt(String hostPath) {
    ContainerConfig config = container(Map.of()).addMounts(Mount.newBuilder().setContainerPath("multicri")
        .setHostPath(hostPath)).build();

    assertThatThrownBy(() -> planner.plan(config, pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("container c: the volume mounted at 'multicri' has host path '%s'".formatted(hostPath));
  }

  @Test
  void interLinkFlavorAnnotationPicksANamedFlavorAndAnUnknownOneIsRefusedNamingIt() {
    SlurmSettings twoFlavors = SlurmSettings.parse("test", new ObjectMapper().valueToTree(Map.of(
        "workDir", "/shared",
        "flavors", Map.of(
            "small", Map.of("flags", List.of("--partition=small", "--time=10")),
            "big", Map.of("flags", List.of("--partition=big", "--mem=64G"))),
        "defaultFlavor", "small")));
    JobPlanner withFlavors = new JobPlanner(twoFlavors, ImageRunner.NONE);

    JobPlan big = withFlavors.plan(container(Map.of()).build(), pod(Map.of(JobPlanner.FLAVOR, "big")), "p", "cid");
    JobPlan fallback = withFlavors.plan(container(Map.of()).build(), pod(Map.of()), "p", "cid");

    assertThat(JobPlanner.FLAVOR).isEqualTo("slurm-job.vk.io/flavor");
    assertThat(big.options().asMap()).containsEntry("partition", "big").containsEntry("mem", "64G")
        .doesNotContainKey("time");
    assertThat(fallback.options().asMap()).containsEntry("partition", "small").containsEntry("time", "10");
    assertThatThrownBy(() -> withFlavors.plan(container(Map.of()).build(), pod(Map.of(JobPlanner.FLAVOR, "huge")),
        "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("slurm-job.vk.io/flavor names flavor 'huge'");
  }

  @Test
  void aCpusetAsksForAsManyCpusAsItListsWhenThatIsMoreThanTheQuota() {
    ContainerConfig config = container(Map.of()).setLinux(LinuxContainerConfig.newBuilder().setResources(
        // half a CPU of quota, but three CPUs pinned
        LinuxContainerResources.newBuilder().setCpuQuota(50_000).setCpuPeriod(100_000).setCpusetCpus("0,2-3"))).build();

    assertThat(planner.plan(config, pod(Map.of()), "p", "cid").options().asMap()).containsEntry("cpus-per-task", "3");
  }

  @Test
  void aMalformedCpusetIsRefusedNamingIt() {
    ContainerConfig config = container(Map.of()).setLinux(LinuxContainerConfig.newBuilder().setResources(
        LinuxContainerResources.newBuilder().setCpusetCpus("0-x"))).build();

    assertThatThrownBy(() -> planner.plan(config, pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("cpuset_cpus").hasMessageContaining("0-x");
  }

  @Test
  void reservedVariablesStayOutOfTheJobAndItsScript() {
    ContainerConfig config = container(Map.of("CLUSTER_CONFIG", "echo pre-123", "CLUSTER_OTHER", "pw-123",
        "JOB_QUEUE", "q", "KUBERNETES_SERVICE_HOST", "10.0.0.1", "MPI_FLAGS", "-np 2", "MPI_VERSION", "4",
        "APP", "value")).build();

    JobPlan plan = planner.plan(config, pod(Map.of()), "p", "cid");
    String script = JobScript.render(plan, "cid", "sid");

    assertThat(plan.jobEnv()).containsEntry("APP", "value").containsOnlyKeys("PATH", "APP");
    assertThat(script).doesNotContain("pw-123").doesNotContain("CLUSTER_").contains("export APP='value'");
  }

  @Test
  void mpiWrapsTheCommandAndPreRunScriptsComeFirst() {
    ContainerConfig config = container(Map.of("MPI_VERSION", "4.1", "MPI_FLAGS", "-np 2",
        "CLUSTER_CONFIG", "module load x")).build();

    JobPlan plan = planner.plan(config, pod(Map.of(JobPlanner.MPI_FLAGS_ANNOTATION, "--bind-to core",
        JobPlanner.PRE_EXEC, "echo pre")), "p", "cid");

    assertThat(plan.command()).containsExactly("mpirun", "-np", "2", "--bind-to", "core", "run", "it");
    assertThat(plan.preRun()).containsExactly("module load x", "echo pre");
  }

  /** Open MPI refuses to start more processes than the job has slots, so -np N asks Slurm for N tasks. */
  @Test
  void mpiProcessCountBecomesTheTaskCountUnlessOneIsGiven() {
    JobPlan asked = planner.plan(container(Map.of("MPI_VERSION", "1.10.2", "MPI_FLAGS", "-np 2")).build(), pod(Map.of()), "p", "c");
    JobPlan given = planner.plan(container(Map.of("MPI_VERSION", "1.10.2", "MPI_FLAGS", "-np 2", "JOB_NUM_CORES", "1")).build(),
        pod(Map.of()), "p", "c");
    JobPlan flagged = planner.plan(container(Map.of("MPI_VERSION", "1.10.2", "MPI_FLAGS", "-n 2")).build(),
        pod(Map.of(InterLinkFlags.FLAGS, "--ntasks=1")), "p", "c");
    JobPlan notMpi = planner.plan(container(Map.of("MPI_FLAGS", "-np 2")).build(), pod(Map.of()), "p", "c");

    assertThat(asked.options().asMap()).containsEntry("ntasks", "2");
    assertThat(given.options().asMap()).containsEntry("ntasks", "1");
    assertThat(flagged.options().asMap()).containsEntry("ntasks", "1");
    assertThat(notMpi.options().asMap()).doesNotContainKey("ntasks");
  }

  @Test
  void customConfigBecomesSbatchInputVariables() {
    JobPlan plan = planner.plan(container(Map.of("JOB_CUSTOM_CONFIG", "SBATCH_TIMELIMIT=5\nSBATCH_QOS=low")).build(),
        pod(Map.of()), "p", "cid");

    assertThat(plan.submitEnv()).containsExactly(Map.entry("SBATCH_TIMELIMIT", "5"), Map.entry("SBATCH_QOS", "low"));
  }

  /** Issue 16 item 4: only the input variables of allowed options pass; sbatch's own behaviour stays crigate's. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"SBATCH_WAIT", "SBATCH_ARRAY_INX", "SBATCH_CLUSTERS", "SBATCH_EXPORT", "SBATCH_OUTPUT",
      "SBATCH_JOB_NAME", "SBATCH_CONTAINER"})
  void customConfigRefusesSbatchVariablesOutsideTheAllowList(String variable) {
    assertThatThrownBy(() -> planner.plan(container(Map.of("JOB_CUSTOM_CONFIG", "SBATCH_QOS=low\n" + variable + "=1"))
        .build(), pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(variable);
  }

  @Test
  void refusesWhatWouldBreakTheScript() {
    assertThatThrownBy(() -> planner.plan(container(Map.of("BAD NAME", "x")).build(), pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("BAD NAME");
    assertThatThrownBy(() -> planner.plan(container(Map.of()).build(), pod(Map.of(JobPlanner.FLAVOR, "huge")), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("huge");
    assertThatThrownBy(() -> planner.plan(container(Map.of("JOB_CUSTOM_CONFIG", "rm -rf /")).build(), pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("JOB_CUSTOM_CONFIG");
    ContainerConfig nul = container(Map.of()).addEnvs(KeyValue.newBuilder().setKey("N")
        .setValue(ByteString.copyFrom(new byte[] {'a', 0, 'b'}))).build();
    assertThatThrownBy(() -> planner.plan(nul, pod(Map.of()), "p", "cid"))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("NUL");
  }

  @Test
  void imageRunnersWrapTheCommand() {
    assertThat(ImageRunner.APPTAINER.command("reg:5000/app:1", "cid", List.of("run"), "/w"))
        .containsExactly("apptainer", "exec", "--pwd", "/w", "docker://reg:5000/app:1", "run");
    assertThat(ImageRunner.SINGULARITY.command("/images/app.sif", "cid", List.of("run"), ""))
        .containsExactly("singularity", "exec", "/images/app.sif", "run");
    // enroot separates the registry host from the repository with '#'
    assertThat(ImageRunner.ENROOT.command("reg:5000/app:1", "cid", List.of("run"), ""))
        .containsExactly("enroot", "start", "docker://reg:5000#app:1", "run");
    assertThat(ImageRunner.PODMAN.command("app:1", "cid", List.of(), ""))
        .containsExactly("podman", "run", "--rm", "--network=host", "--name", "crigate-cid", "app:1");
    assertThat(ImageRunner.NONE.pullCommand("app:1", java.nio.file.Path.of("/i"))).isEmpty();
  }

  /** busyecho_k8s.yaml's image is an unpacked image directory on CVMFS, which Singularity runs in place. */
  @Test
  void busyechosCvmfsImageRunsInPlaceUnderSingularityAndIsIgnoredWithRunnerNone() {
    String image = "/cvmfs/unpacked.cern.ch/registry.hub.docker.com/cmssw/el8:ppc64le";
    List<String> command = List.of("/m100/home/userexternal/gsurace0/script.sh");

    assertThat(ImageRunner.SINGULARITY.command(image, "cid", command, ""))
        .containsExactly("singularity", "exec", image, "/m100/home/userexternal/gsurace0/script.sh");
    assertThat(ImageRunner.NONE.command(image, "cid", command, "")).isEqualTo(command);
  }

  /** ExecSync must see the container's file system, not the compute node's. */
  @Test
  void execRunsInsideTheImage() {
    List<String> cmd = List.of("cat", "/etc/os-release");
    assertThat(ImageRunner.NONE.exec("none", "cid", cmd)).containsExactly("cat", "/etc/os-release");
    assertThat(ImageRunner.APPTAINER.exec("reg:5000/app:1", "cid", cmd))
        .containsExactly("apptainer", "exec", "docker://reg:5000/app:1", "cat", "/etc/os-release");
    assertThat(ImageRunner.SINGULARITY.exec("/images/app.sif", "cid", cmd))
        .containsExactly("singularity", "exec", "/images/app.sif", "cat", "/etc/os-release");
    assertThat(ImageRunner.ENROOT.exec("reg:5000/app:1", "cid", cmd))
        .containsExactly("enroot", "start", "docker://reg:5000#app:1", "cat", "/etc/os-release");
    // the job's own container, by the name its run gave it
    assertThat(ImageRunner.PODMAN.exec("app:1", "cid", cmd))
        .containsExactly("podman", "exec", "crigate-cid", "cat", "/etc/os-release");
    // only podman's container outlives a killed job, so only podman needs removing before the kill
    assertThat(ImageRunner.PODMAN.forceRemove("cid")).containsExactly("podman", "rm", "--force", "--time=0", "crigate-cid");
    assertThat(ImageRunner.APPTAINER.forceRemove("cid")).isEmpty();
    assertThat(ImageRunner.NONE.forceRemove("cid")).isEmpty();
  }

  @Test
  void settingsNeverPrintSecrets() {
    SlurmSettings settings = SlurmSettings.parse("t", new ObjectMapper().valueToTree(Map.of("workDir", "/w",
        "transport", "rest", "rest", Map.of("url", "https://h:1", "user", "u", "token", "tok-secret"))));

    assertThat(settings.toString()).doesNotContain("tok-secret");
    assertThat(settings.rest().toString()).doesNotContain("tok-secret");
    assertThatThrownBy(() -> SlurmSettings.parse("t", new ObjectMapper().valueToTree(Map.of("workDir", "/w", "bogus", 1))))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("bogus");
  }
}

package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.LinuxContainerResources;
import io.crigate.api.cri.v1.PodSandboxConfig;
import com.google.protobuf.ByteString;
import io.crigate.spi.CrigateException;
import io.crigate.topology.CpuSet;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Turns a container and its pod into a {@link JobPlan}. Sources, weakest first: the flavor (named
 * by annotation, else the default), the container's CPU and memory limits, the pod's
 * {@code slurm-job.vk.io/flags} (or KNoC's {@code slurm-job.knoc.io/flags}), then the container's JOB_* variables.
 */
final class JobPlanner {

  static final String FLAVOR = "slurm-job.vk.io/flavor";
  static final String PRE_EXEC = "slurm-job.vk.io/pre-exec";
  static final String MPI_FLAGS_ANNOTATION = "slurm-job.vk.io/mpi-flags";

  private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern SBATCH_INPUT = Pattern.compile("(SBATCH_[A-Z0-9_]+)=(.*)");
  private static final long MIB = 1024 * 1024;
  private static final String DEFAULT_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

  private final SlurmSettings settings;
  private final ImageRunner runner;
  private final SandboxDirectory dirs;

  JobPlanner(SlurmSettings settings, ImageRunner runner) {
    this.settings = settings;
    this.runner = runner;
    this.dirs = new SandboxDirectory(settings.workDirPath());
  }

  /** Variables the gateway consumes; they never reach the job (multi-cri reserves the same). */
  static boolean reserved(String name) {
    return name.startsWith("CLUSTER_") || name.startsWith("JOB_") || name.startsWith("KUBERNETES_")
        || name.equals("MPI_FLAGS") || name.equals("MPI_VERSION");
  }

  JobPlan plan(ContainerConfig container, PodSandboxConfig pod, String sandboxId, String containerId) {
    Map<String, String> env = new LinkedHashMap<>();
    for (KeyValue kv : container.getEnvsList()) {
      env.put(kv.getKey(), text(kv));
    }
    Map<String, String> annotations = pod.getAnnotationsMap();

    SbatchOptions options = new SbatchOptions();
    String flavorName = annotations.getOrDefault(FLAVOR, settings.defaultFlavor());
    if (flavorName != null) {
      SlurmSettings.Flavor flavor = settings.flavorsOrEmpty().get(flavorName);
      if (flavor == null) {
        throw new CrigateException.InvalidArgument("annotation %s names flavor '%s', which this backend does not define (known: %s)"
            .formatted(FLAVOR, flavorName, settings.flavorsOrEmpty().keySet()));
      }
      options.setAll(SbatchOptions.parse("flavor " + flavorName, flavor.flags() == null ? List.of() : flavor.flags()));
    }
    options.setAll(fromResources(container.getLinux().getResources()));
    InterLinkFlags flags = InterLinkFlags.of(annotations, pod.getMetadata().getName(), SlurmClient.NAME_PREFIX + containerId);
    options.setAll(SbatchOptions.parse("annotation " + flags.annotation(), flags.words()));
    options.setAll(fromJobVariables(env));

    List<String> preRun = new ArrayList<>();
    if (env.containsKey("CLUSTER_CONFIG")) {
      preRun.add(env.get("CLUSTER_CONFIG"));
    }
    if (annotations.containsKey(PRE_EXEC)) {
      preRun.add(annotations.get(PRE_EXEC));
    }

    List<String> argv = new ArrayList<>(container.getCommandList());
    argv.addAll(container.getArgsList());
    refuseShellChains(container.getMetadata().getName(), argv);
    String image = container.getImage().getImage();
    String workingDir = container.getWorkingDir();
    List<String> launcher = mpiLauncher(env, annotations);
    if (!options.asMap().containsKey("ntasks")) {
      mpiProcesses(launcher).ifPresent(processes -> options.set("ntasks", processes));
    }
    List<String> command = new ArrayList<>(launcher);
    command.addAll(runner.command(image, containerId, argv, workingDir));

    Map<String, String> jobEnv = new LinkedHashMap<>();
    jobEnv.put("PATH", DEFAULT_PATH);
    env.forEach((name, value) -> {
      if (!ENV_NAME.matcher(name).matches()) {
        throw new CrigateException.InvalidArgument("environment variable name '%s' of container %s is not a valid shell name"
            .formatted(name, container.getMetadata().getName()));
      }
      if (!reserved(name)) {
        jobEnv.put(name, value);
      }
    });
    // On a multi-cri volume the job starts in its results directory, as multi-cri's jobs did.
    Optional<MultiCriVolume> volume = MultiCriVolume.of(container);
    Path defaultDir = volume.map(v -> dirs.results(v.claim(), sandboxId, containerId))
        .orElse(dirs.container(sandboxId, containerId));
    String startDir = runner == ImageRunner.NONE && !workingDir.isEmpty() ? workingDir : defaultDir.toString();
    Optional<JobPlan.Results> results = volume.map(v -> new JobPlan.Results(defaultDir.toString(),
        v.announcement(defaultDir, sandboxId, containerId)));
    return new JobPlan(options, submitEnv(env), jobEnv, preRun, command, startDir,
        container.getLinux().getResources().getCpusetCpus(), results);
  }

  /**
   * multi-cri wrote a container's words into its job script as one shell line, so its README's
   * {@code command: ["sleep", "60", "&&", "ls", "/"]} chained two commands. crigate runs the words as
   * Kubernetes defines them, without a shell, where that command is sleep failing on '&&' in the
   * job's log. A lone {@code &&} or {@code ||} is that mistake, so it is refused at once, with the
   * form that does what was meant.
   */
  private static void refuseShellChains(String container, List<String> argv) {
    if (argv.contains("&&") || argv.contains("||")) {
      throw new CrigateException.InvalidArgument(("container %s: the command %s has a lone '&&' or '||', which only a shell "
          + "reads; crigate runs the command without one, as Kubernetes does (multi-cri joined it into a shell line). "
          + "Write command: [\"/bin/sh\", \"-c\", \"%s\"]").formatted(container, argv, String.join(" ", argv).replace("\"", "\\\"")));
    }
  }

  /**
   * Values arrive as bytes. A shell variable cannot hold NUL, and the script is UTF-8, so anything
   * else that is valid UTF-8 reaches the job byte for byte; the rest is refused rather than altered.
   */
  private static String text(KeyValue kv) {
    if (hasNul(kv.getValue())) {
      throw new CrigateException.InvalidArgument("environment variable %s contains a NUL byte".formatted(kv.getKey()));
    }
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(kv.getValue().asReadOnlyByteBuffer()).toString();
    } catch (CharacterCodingException e) {
      throw new CrigateException.InvalidArgument("environment variable %s is not valid UTF-8".formatted(kv.getKey()));
    }
  }

  private static boolean hasNul(ByteString value) {
    for (int i = 0; i < value.size(); i++) {
      if (value.byteAt(i) == 0) {
        return true;
      }
    }
    return false;
  }

  private static SbatchOptions fromResources(LinuxContainerResources resources) {
    SbatchOptions options = new SbatchOptions();
    long cpus = Math.max(quotaCpus(resources), cpusetCpus(resources.getCpusetCpus()));
    if (cpus > 0) {
      options.set("cpus-per-task", Long.toString(cpus));
    }
    if (resources.getMemoryLimitInBytes() > 0) {
      options.set("mem", ((resources.getMemoryLimitInBytes() + MIB - 1) / MIB) + "M");
    }
    return options;
  }

  /** quota/period is the CPU limit in cores; Slurm allocates whole CPUs, so round up. */
  private static long quotaCpus(LinuxContainerResources resources) {
    if (resources.getCpuQuota() <= 0 || resources.getCpuPeriod() <= 0) {
      return 0;
    }
    return (resources.getCpuQuota() + resources.getCpuPeriod() - 1) / resources.getCpuPeriod();
  }

  /**
   * A cpuset (from an NRI plugin or a CPU policy) asks for that many CPUs. sbatch cannot name CPU
   * ids: which CPUs the job gets is Slurm's choice, and the job pins itself to the ids only when they
   * are among them ({@link CpuPinning}).
   */
  private static long cpusetCpus(String cpuset) {
    try {
      return CpuSet.parse(cpuset).size();
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument("cpuset_cpus: " + e.getMessage());
    }
  }

  /** multi-cri's container variables, each mapped to one sbatch option. */
  private static SbatchOptions fromJobVariables(Map<String, String> env) {
    SbatchOptions options = new SbatchOptions();
    Map<String, String> mapping = new LinkedHashMap<>();
    mapping.put("JOB_QUEUE", "partition");
    mapping.put("JOB_GPU", "gres");
    mapping.put("JOB_NUM_NODES", "nodes");
    mapping.put("JOB_NUM_CORES_NODE", "mincpus");
    mapping.put("JOB_NUM_CORES", "ntasks");
    mapping.put("JOB_NUM_TASKS_NODE", "ntasks-per-node");
    mapping.forEach((variable, option) -> {
      String value = env.get(variable);
      if (value != null && !value.isBlank()) {
        if (value.contains("\n")) {
          throw new CrigateException.InvalidArgument("%s must be a single line".formatted(variable));
        }
        options.set(option, value.strip());
      }
    });
    return options;
  }

  /** JOB_CUSTOM_CONFIG holds SBATCH_* input variables, one NAME=value per line. */
  private static Map<String, String> submitEnv(Map<String, String> env) {
    Map<String, String> result = new LinkedHashMap<>();
    String custom = env.getOrDefault("JOB_CUSTOM_CONFIG", "");
    for (String line : custom.split("[\\n;]")) {
      if (line.isBlank()) {
        continue;
      }
      var match = SBATCH_INPUT.matcher(line.strip());
      if (!match.matches()) {
        throw new CrigateException.InvalidArgument(
            "JOB_CUSTOM_CONFIG line '%s' is not SBATCH_NAME=value".formatted(line.strip()));
      }
      SbatchOptionNames.checkVariable(match.group(1));
      result.put(match.group(1), match.group(2));
    }
    return result;
  }

  /**
   * The process count an mpirun line asks for ({@code -np N}, {@code -n N}, {@code -c N}). Open MPI
   * starts no more processes than the allocation has slots ("not enough slots available"), so
   * multi-cri's README job, {@code MPI_FLAGS: "-np 2"} without JOB_NUM_CORES, gets as many tasks as
   * it asks processes for; a task count given any other way wins.
   */
  private static Optional<String> mpiProcesses(List<String> launcher) {
    for (int i = 1; i + 1 < launcher.size(); i++) {
      if (List.of("-np", "--np", "-n", "--n", "-c").contains(launcher.get(i)) && launcher.get(i + 1).matches("[1-9][0-9]*")) {
        return Optional.of(launcher.get(i + 1));
      }
    }
    return Optional.empty();
  }

  private static List<String> mpiLauncher(Map<String, String> env, Map<String, String> annotations) {
    String mpiFlags = (env.getOrDefault("MPI_FLAGS", "") + " " + annotations.getOrDefault(MPI_FLAGS_ANNOTATION, "")).strip();
    if (!env.containsKey("MPI_VERSION") && !annotations.containsKey(MPI_FLAGS_ANNOTATION)) {
      return List.of();
    }
    List<String> launcher = new ArrayList<>();
    launcher.add("mpirun");
    launcher.addAll(ShellWords.split("annotation " + MPI_FLAGS_ANNOTATION, mpiFlags));
    return launcher;
  }
}

package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;

/**
 * Which sbatch options and input variables a pod (or a flavor) may set. sbatch, through
 * getopt_long, takes any unique prefix of a long option, so {@code --job-nam=} or {@code --outp=}
 * would pass a guard that compares whole names. Here a written name is resolved the same way, against
 * every long option of sbatch 22.05, and only options on an allow-list are accepted; the option is
 * then handed to sbatch under its full name, so sbatch never resolves a prefix itself.
 */
final class SbatchOptionNames {

  /** Options crigate sets itself: log streaming and restart reconciliation depend on them. */
  static final Set<String> CRIGATE_OWN = Set.of("job-name", "comment", "output", "error", "chdir", "export",
      "parsable");

  /** Resource and placement requests: they change where and how long the job runs, not as whom or what it reads. */
  static final Set<String> ALLOWED = Set.of("account", "acctg-freq", "begin", "cluster-constraint", "constraint",
      "contiguous", "core-spec", "cores-per-socket", "cpu-freq", "cpus-per-gpu", "cpus-per-task", "deadline",
      "delay-boot", "dependency", "distribution", "exclude", "exclusive", "extra-node-info", "gpu-bind", "gpu-freq",
      "gpus", "gpus-per-node", "gpus-per-socket", "gpus-per-task", "gres", "gres-flags", "hint", "licenses",
      "mail-type", "mail-user", "mcs-label", "mem", "mem-bind", "mem-per-cpu", "mem-per-gpu", "mincpus", "network",
      "nice", "no-kill", "no-requeue", "nodelist", "nodes", "ntasks", "ntasks-per-core", "ntasks-per-gpu",
      "ntasks-per-node", "ntasks-per-socket", "overcommit", "oversubscribe", "partition", "power", "prefer",
      "priority", "profile", "propagate", "qos", "reservation", "signal", "sockets-per-node", "spread-job",
      "switches", "thread-spec", "threads-per-core", "time", "time-min", "tmp", "use-min-nodes", "wckey");

  /**
   * The rest of sbatch's long options: they name files on crigate's host or the job's streams
   * (input, export-file, nodefile, bbf, container), another cluster or identity (clusters, uid,
   * gid, get-user-env), or change how sbatch itself behaves (array, wait, test-only, wrap, requeue).
   */
  private static final Set<String> REFUSED = Set.of("array", "autocomplete", "batch", "bb", "bbf", "clusters",
      "container", "export-file", "get-user-env", "gid", "help", "hold", "ignore-pbs", "input",
      "kill-on-invalid-dep", "nodefile", "open-mode", "quiet", "reboot", "requeue", "test-only", "uid", "usage",
      "verbose", "version", "wait", "wait-all-nodes", "wrap");

  private static final Set<String> ALL = Stream.of(CRIGATE_OWN, ALLOWED, REFUSED).flatMap(Set::stream)
      .collect(java.util.stream.Collectors.toUnmodifiableSet());

  /** sbatch input variables a pod may set through JOB_CUSTOM_CONFIG: those of allowed options. */
  static final Set<String> ALLOWED_VARIABLES = Set.of("SBATCH_ACCOUNT", "SBATCH_ACCTG_FREQ", "SBATCH_CONSTRAINT",
      "SBATCH_CLUSTER_CONSTRAINT", "SBATCH_CORE_SPEC", "SBATCH_CPUS_PER_GPU", "SBATCH_CPU_FREQ_REQ",
      "SBATCH_DELAY_BOOT", "SBATCH_DISTRIBUTION", "SBATCH_EXCLUSIVE", "SBATCH_GPU_BIND", "SBATCH_GPU_FREQ",
      "SBATCH_GPUS", "SBATCH_GPUS_PER_NODE", "SBATCH_GPUS_PER_TASK", "SBATCH_GRES", "SBATCH_GRES_FLAGS",
      "SBATCH_HINT", "SBATCH_MEM_BIND", "SBATCH_MEM_PER_CPU", "SBATCH_MEM_PER_GPU", "SBATCH_MEM_PER_NODE",
      "SBATCH_NETWORK", "SBATCH_NO_KILL", "SBATCH_NO_REQUEUE", "SBATCH_OVERCOMMIT", "SBATCH_PARTITION",
      "SBATCH_POWER", "SBATCH_PROFILE", "SBATCH_QOS", "SBATCH_REQ_SWITCH", "SBATCH_RESERVATION", "SBATCH_SIGNAL",
      "SBATCH_SPREAD_JOB", "SBATCH_THREAD_SPEC", "SBATCH_THREADS_PER_CORE", "SBATCH_TIMELIMIT",
      "SBATCH_USE_MIN_NODES", "SBATCH_WCKEY");

  private SbatchOptionNames() {}

  /**
   * The full name of the option {@code written} (without dashes) means, as sbatch would read it.
   *
   * @throws CrigateException.InvalidArgument naming the option when it is unknown, ambiguous or not allowed
   */
  static String resolve(String source, String written) {
    String name = ALL.contains(written) ? written : uniquePrefix(source, written);
    if (CRIGATE_OWN.contains(name)) {
      throw invalid(source, "option --%s%s is set by crigate and cannot be overridden".formatted(written, means(written, name)));
    }
    if (!ALLOWED.contains(name)) {
      throw invalid(source, "option --%s%s is not among the sbatch options a pod may set (%s)"
          .formatted(written, means(written, name), "resource and placement requests, see docs/slurm.md"));
    }
    return name;
  }

  /** @throws CrigateException.InvalidArgument naming the variable when it is not allowed */
  static void checkVariable(String variable) {
    if (!ALLOWED_VARIABLES.contains(variable)) {
      throw new CrigateException.InvalidArgument(("JOB_CUSTOM_CONFIG sets %s, which is not among the sbatch input "
          + "variables crigate passes on (allowed: %s)").formatted(variable, new TreeSet<>(ALLOWED_VARIABLES)));
    }
  }

  private static String uniquePrefix(String source, String written) {
    List<String> candidates = ALL.stream().filter(option -> option.startsWith(written)).sorted().toList();
    if (candidates.isEmpty()) {
      throw invalid(source, "--%s is not an sbatch option".formatted(written));
    }
    if (candidates.size() > 1) {
      throw invalid(source, "option --%s is ambiguous (%s); write the full name".formatted(written,
          String.join(", ", candidates)));
    }
    return candidates.getFirst();
  }

  private static String means(String written, String name) {
    return written.equals(name) ? "" : " (--" + name + ")";
  }

  private static CrigateException.InvalidArgument invalid(String source, String problem) {
    return new CrigateException.InvalidArgument("%s: %s".formatted(source, problem));
  }
}

package io.crigate.backend.slurm;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Everything a container's job needs, resolved from its config, its pod and the backend settings.
 *
 * @param options sbatch options (flavor, resources, annotations, JOB_* variables)
 * @param submitEnv SBATCH_* input variables for sbatch itself (JOB_CUSTOM_CONFIG)
 * @param jobEnv the environment the job sees; reserved names are already removed
 * @param preRun user-supplied script fragments run before the command (CLUSTER_CONFIG, pre-exec)
 * @param command the argv the job executes, launcher and image runner included
 * @param workingDir the directory the command starts in
 * @param cpus the container's cpuset, which the job pins itself to inside its allocation ({@link CpuPinning}); empty for none
 * @param results where the job keeps its results on a multi-cri volume ({@link MultiCriVolume})
 */
record JobPlan(SbatchOptions options, Map<String, String> submitEnv, Map<String, String> jobEnv,
    List<String> preRun, List<String> command, String workingDir, String cpus, Optional<Results> results) {

  /**
   * @param directory the container's results directory, made by the job itself: only the cluster
   *     has the volume mounted
   * @param announcement the line the job prints first, naming the directory
   */
  record Results(String directory, String announcement) {}
}

package io.crigate.backend.slurm;

import java.util.Map;

/**
 * Renders a job's batch script. Every value that comes from a pod (environment values, argv,
 * paths) is single-quoted, so the script cannot be steered by them. The only verbatim parts are
 * the pre-run fragments, which users supply precisely to be run as shell code in their own job.
 */
final class JobScript {

  private JobScript() {}

  static String render(JobPlan plan, String containerId, String sandboxId) {
    StringBuilder script = new StringBuilder();
    script.append("#!/bin/bash\n");
    script.append("# crigate container ").append(containerId).append(" of pod ").append(sandboxId).append('\n');
    for (Map.Entry<String, String> env : plan.jobEnv().entrySet()) {
      // Names are checked against [A-Za-z_][A-Za-z0-9_]* by the planner; values are quoted.
      script.append("export ").append(env.getKey()).append('=').append(ShellQuote.quote(env.getValue())).append('\n');
    }
    if (!plan.cpus().isEmpty()) {
      script.append(CpuPinning.fragment(plan.cpus()));
    }
    plan.results().ifPresent(results -> script
        .append("mkdir -p -- ").append(ShellQuote.quote(results.directory())).append(" || exit 127\n")
        .append("printf '%s\\n' ").append(ShellQuote.quote(results.announcement())).append('\n'));
    for (String fragment : plan.preRun()) {
      script.append(fragment).append('\n');
    }
    // "--": a working dir or a command starting with "-" is a name, not an option of cd or exec.
    script.append("cd -- ").append(ShellQuote.quote(directory(plan.workingDir()))).append(" || exit 127\n");
    script.append("exec -- ").append(ShellQuote.join(plan.command())).append('\n');
    return script.toString();
  }

  /**
   * A relative dir as "./dir": bash's cd reads an operand "-" as $OLDPWD even after "--", and looks
   * relative names up in $CDPATH, which the pod's environment sets.
   */
  private static String directory(String dir) {
    return dir.startsWith("/") ? dir : "./" + dir;
  }
}

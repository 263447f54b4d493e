package io.crigate.backend.slurm;

/**
 * The batch script's part that gives a job the CPU ids of its container's cpuset (from an NRI plugin
 * or a CPU policy). sbatch cannot ask for CPU ids, and {@code srun --cpu-bind} needs a task plugin
 * that binds (task/affinity or task/cgroup), so the script pins itself with {@code taskset} before it
 * execs the command, which inherits the affinity. It pins only when every requested id is among the
 * CPUs Slurm allocated to the job on this node ({@code scontrol -d show job}: {@code CPU_IDs}) and
 * among those its task plugin lets it use ({@code Cpus_allowed_list}); otherwise it says so on the
 * job's stderr (the container's log) and runs where Slurm placed it: never on CPUs Slurm gave another job.
 */
final class CpuPinning {

  private CpuPinning() {}

  /** @param cpus a cpuset already checked by {@link io.crigate.topology.CpuSet#parse}, e.g. {@code 0-1,4} */
  static String fragment(String cpus) {
    return FUNCTIONS + "crigate_pin " + ShellQuote.quote(cpus) + "\n";
  }

  private static final String FUNCTIONS = """
      crigate_cpu_ids() {
        local range
        for range in ${1//,/ }; do
          if [[ $range == *-* ]]; then seq "${range%-*}" "${range#*-}"; else echo "$range"; fi
        done
      }
      crigate_pin() {
        local want=$1 job allowed id missing=""
        local -A in_job=() in_allowed=()
        job=$(scontrol -d show job "$SLURM_JOB_ID" 2>/dev/null \\
          | sed -n "s/^ *Nodes=${SLURMD_NODENAME:-$(hostname -s)} CPU_IDs=\\([^ ]*\\).*/\\1/p")
        allowed=$(sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' /proc/self/status)
        if [ -z "$job" ]; then
          echo "crigate: cpuset $want not applied: cannot read this job's CPU ids from scontrol -d show job $SLURM_JOB_ID" >&2
          return 0
        fi
        for id in $(crigate_cpu_ids "$job"); do in_job[$id]=1; done
        for id in $(crigate_cpu_ids "$allowed"); do in_allowed[$id]=1; done
        for id in $(crigate_cpu_ids "$want"); do
          [ -n "${in_job[$id]:-}" ] && [ -n "${in_allowed[$id]:-}" ] || missing+=" $id"
        done
        if [ -n "$missing" ]; then
          echo "crigate: cpuset $want not applied: CPU(s)$missing not among this job's CPUs (Slurm allocated $job, allowed $allowed); running on Slurm's placement" >&2
        elif taskset -pc "$want" $$ >/dev/null; then
          echo "crigate: pinned to cpuset $want (Slurm allocated $job)" >&2
        else
          echo "crigate: cpuset $want not applied: taskset failed" >&2
        fi
      }
      """;
}

package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The rendered script run by a real bash, as sbatch runs it. */
class JobScriptTest {

  @TempDir Path tmp;

  /**
   * Issue 16 item 12: without "--", cd and exec read a leading '-' as one of their options; and a
   * relative dir must not be looked up in the pod's CDPATH, nor "-" be read as $OLDPWD.
   */
  @Test
  void aWorkingDirAndACommandStartingWithADashAreNamesNotOptions() throws Exception {
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path tool = Files.writeString(bin.resolve("-la"), "#!/bin/sh\necho \"ran $1 in $(pwd)\"\n");
    Files.setPosixFilePermissions(tool, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path work = Files.createDirectories(tmp.resolve("-"));
    Path decoy = Files.createDirectories(tmp.resolve("decoy/-"));
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", bin + ":/usr/bin:/bin");
    env.put("CDPATH", decoy.getParent().toString());
    JobPlan plan = new JobPlan(new SbatchOptions(), Map.of(), env, List.of(), List.of("-la", "arg"), "-", "", Optional.empty());

    Path script = Files.writeString(tmp.resolve("job.sh"), JobScript.render(plan, "cid", "sid"));
    Process bash = new ProcessBuilder("bash", script.toString()).directory(tmp.toFile()).redirectErrorStream(true).start();
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(bash.waitFor()).as(out).isZero();
    assertThat(out).isEqualTo("ran arg in " + work + "\n");
  }

  /**
   * The job pins itself to the cpuset when Slurm allocated those CPUs to it (scontrol -d show job's
   * CPU_IDs, here a stand-in scontrol on PATH; taskset and /proc are real), and says why not otherwise.
   */
  @Test
  void aCpusetInsideTheJobsAllocationPinsTheCommandToIt() throws Exception {
    // CPU 0 is the one every machine has
    assertThat(runPinned("0", "0-1")).contains("crigate: pinned to cpuset 0 (Slurm allocated 0-1)")
        .contains("Cpus_allowed_list:\t0\n");
  }

  @Test
  void aCpusetOutsideTheJobsAllocationIsNotAppliedAndSaysSo() throws Exception {
    String out = runPinned("0", "1");
    assertThat(out).contains("crigate: cpuset 0 not applied: CPU(s) 0 not among this job's CPUs (Slurm allocated 1, allowed ")
        .doesNotContain("Cpus_allowed_list:\t0\n");
  }

  @Test
  void aJobWhoseCpusScontrolCannotTellIsNotPinned() throws Exception {
    assertThat(runPinned("0", "")).contains("crigate: cpuset 0 not applied: cannot read this job's CPU ids");
  }

  private String runPinned(String cpus, String jobCpus) throws Exception {
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    Path scontrol = Files.writeString(bin.resolve("scontrol"), jobCpus.isEmpty() ? "#!/bin/sh\nexit 1\n"
        : "#!/bin/sh\necho '   NumNodes=1 NumCPUs=2'\necho '     Nodes=node7 CPU_IDs=%s Mem=0 GRES='\n".formatted(jobCpus));
    Files.setPosixFilePermissions(scontrol, PosixFilePermissions.fromString("rwxr-xr-x"));
    Map<String, String> env = new LinkedHashMap<>();
    env.put("PATH", bin + ":/usr/bin:/bin");
    env.put("SLURM_JOB_ID", "42");
    env.put("SLURMD_NODENAME", "node7");
    JobPlan plan = new JobPlan(new SbatchOptions(), Map.of(), env, List.of(),
        List.of("grep", "Cpus_allowed_list", "/proc/self/status"), tmp.toString(), cpus, Optional.empty());

    Path script = Files.writeString(tmp.resolve("job.sh"), JobScript.render(plan, "cid", "sid"));
    Process bash = new ProcessBuilder("bash", script.toString()).redirectErrorStream(true).start();
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(bash.waitFor()).as(out).isZero();
    return out;
  }
}

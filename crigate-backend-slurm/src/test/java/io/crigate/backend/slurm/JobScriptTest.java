package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
    JobPlan plan = new JobPlan(new SbatchOptions(), Map.of(), env, List.of(), List.of("-la", "arg"), "-");

    Path script = Files.writeString(tmp.resolve("job.sh"), JobScript.render(plan, "cid", "sid"));
    Process bash = new ProcessBuilder("bash", script.toString()).directory(tmp.toFile()).redirectErrorStream(true).start();
    String out = new String(bash.getInputStream().readAllBytes(), StandardCharsets.UTF_8);

    assertThat(bash.waitFor()).as(out).isZero();
    assertThat(out).isEqualTo("ran arg in " + work + "\n");
  }
}

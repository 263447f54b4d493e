package io.crigate.backend.slurm;

import java.util.Map;

/**
 * One submission. {@code name} carries the container id, so a job submitted just before a crash
 * can be found again by name.
 */
record JobSpec(String name, String comment, String workDir, String stdoutPath, String stderrPath, String script,
    SbatchOptions options, Map<String, String> submitEnv) {}

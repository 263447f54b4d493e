package io.crigate.backend.slurm;

import java.nio.file.Path;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * What a streaming session needs of a container whose job runs.
 *
 * @param containerId the container
 * @param jobId its Slurm job, whose allocation srun joins
 * @param login the container's own cluster login, or null for the backend's configured cluster
 * @param launcher starts srun where that cluster is reached, for an exec with streams; null when the
 *     transport cannot (slurmrestd)
 * @param inImage turns a command into the argv that runs it in the container's image (the runner's exec)
 * @param outputDir where the job writes {@code stdout} and {@code stderr}
 * @param ended whether the job has ended since
 */
record RunningJob(String containerId, long jobId, String login, Interactive.Launcher launcher,
    UnaryOperator<List<String>> inImage, Path outputDir, BooleanSupplier ended) {}

package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How a container image becomes a process on a compute node. {@code none} runs the command on the
 * node itself and ignores the image (multi-cri's plain batch jobs). An image that is an absolute
 * path is used as a local image file, as multi-cri's local images are. multi-cri's own image names
 * ({@code multicri/docker.perl}) are read as {@link MultiCriImageNames} says.
 */
enum ImageRunner {
  NONE,
  APPTAINER,
  SINGULARITY,
  ENROOT,
  PODMAN;

  static ImageRunner parse(String backend, String value) {
    if (value == null) {
      return NONE;
    }
    try {
      return valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw SlurmSettings.invalid(backend, "runner '%s' is not one of none, apptainer, singularity, enroot, podman"
          .formatted(value));
    }
  }

  private String tool() {
    return name().toLowerCase(Locale.ROOT);
  }

  /**
   * The argv the job script executes for {@code image} with the container's command. podman's
   * container is named after the job, so ExecSync can find it.
   */
  List<String> command(String image, String containerId, List<String> argv, String workingDir) {
    List<String> words = new ArrayList<>();
    switch (this) {
      case NONE -> {
        if (argv.isEmpty()) {
          throw new CrigateException.InvalidArgument("runner none needs a command: image %s is not run".formatted(image));
        }
      }
      case APPTAINER, SINGULARITY -> {
        words.addAll(List.of(tool(), argv.isEmpty() ? "run" : "exec"));
        if (!workingDir.isEmpty()) {
          words.addAll(List.of("--pwd", workingDir));
        }
        words.add(source(image));
      }
      case ENROOT -> words.addAll(List.of("enroot", "start", source(image)));
      case PODMAN -> {
        words.addAll(List.of("podman", "run", "--rm", "--network=host", "--name", SlurmClient.NAME_PREFIX + containerId));
        if (!workingDir.isEmpty()) {
          words.addAll(List.of("--workdir", workingDir));
        }
        words.add(MultiCriImageNames.resolve(image));
      }
    }
    words.addAll(argv);
    return words;
  }

  /**
   * The argv ExecSync runs inside the job's allocation, so the command sees the container's file
   * system as the job does: a second process of the same image for apptainer, singularity and
   * enroot (they share the host's namespaces anyway), the job's own container for podman.
   */
  List<String> exec(String image, String containerId, List<String> argv) {
    List<String> words = new ArrayList<>();
    switch (this) {
      case NONE -> {}
      case APPTAINER, SINGULARITY -> words.addAll(List.of(tool(), "exec", source(image)));
      case ENROOT -> words.addAll(List.of("enroot", "start", source(image)));
      case PODMAN -> words.addAll(List.of("podman", "exec", SlurmClient.NAME_PREFIX + containerId));
    }
    words.addAll(argv);
    return words;
  }

  /**
   * The argv that removes the job's container at once, run inside the allocation before the job is
   * killed; empty when the container is just a process of the job. podman's container lives under
   * conmon, outside the job's process tree, where scancel's SIGKILL never reaches it.
   */
  List<String> forceRemove(String containerId) {
    return this == PODMAN ? List.of("podman", "rm", "--force", "--time=0", SlurmClient.NAME_PREFIX + containerId)
        : List.of();
  }

  /** The argv that fetches {@code image} onto the cluster ahead of a job; empty when nothing to do. */
  List<String> pullCommand(String image, Path imageDir) {
    if (this == NONE) {
      return List.of();
    }
    String ref = MultiCriImageNames.resolve(image);
    if (isLocalFile(ref)) {
      return List.of();
    }
    String file = imageDir.resolve(image.replaceAll("[^A-Za-z0-9._-]", "_")).toString();
    return switch (this) {
      case APPTAINER, SINGULARITY -> List.of(tool(), "pull", "--force", file + ".sif", "docker://" + ref);
      case ENROOT -> List.of("enroot", "import", "--output", file + ".sqsh", enrootUri(ref));
      case PODMAN -> List.of("podman", "pull", ref);
      case NONE -> List.of();
    };
  }

  /** What apptainer, singularity and enroot are given to run: a local image file as is, else a registry URI. */
  private String source(String image) {
    String ref = MultiCriImageNames.resolve(image);
    if (isLocalFile(ref)) {
      return ref;
    }
    return this == ENROOT ? enrootUri(ref) : "docker://" + ref;
  }

  private static boolean isLocalFile(String image) {
    return image.startsWith("/");
  }

  /** enroot separates the registry host from the repository with '#'. */
  private static String enrootUri(String image) {
    int slash = image.indexOf('/');
    if (slash > 0) {
      String first = image.substring(0, slash);
      if (first.contains(".") || first.contains(":") || first.equals("localhost")) {
        return "docker://" + first + "#" + image.substring(slash + 1);
      }
    }
    return "docker://" + image;
  }
}

package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import io.crigate.spi.UntrustedTree;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalNotFoundException;

/**
 * The layout of the shared work dir: {@code <workDir>/<sandbox>/<container>/{stdout,stderr}}, and
 * {@code <workDir>/<claim>/<sandbox>/<container>} for results on a multi-cri volume. The
 * batch script is not written here: sbatch reads it from stdin and slurmctld keeps it
 * ({@code scontrol write batch_script}).
 *
 * <p>A failure of the shared file system (unmounted, full, stale NFS handle) is Unavailable: the
 * cluster's storage is out of reach right now, as slurmctld can be; it is not a bug in crigate.
 */
record SandboxDirectory(Path workDir) {

  Path pod(String sandboxId) {
    return workDir.resolve(sandboxId);
  }

  Path container(String sandboxId, String containerId) {
    return pod(sandboxId).resolve(containerId);
  }

  /** Where Slurm writes the job's standard output ({@code sbatch --output}). */
  Path stdout(String sandboxId, String containerId) {
    return container(sandboxId, containerId).resolve("stdout");
  }

  /** Where Slurm writes the job's standard error ({@code sbatch --error}). */
  Path stderr(String sandboxId, String containerId) {
    return container(sandboxId, containerId).resolve("stderr");
  }

  /**
   * A container's results on multi-cri's shared volume ({@link MultiCriVolume}): the cluster mounts
   * the volume at {@code <workDir>/<claim>}, and multi-cri kept each container's files at
   * {@code <sandbox>/<container>} inside it.
   */
  Path results(String claim, String sandboxId, String containerId) {
    return workDir.resolve(claim).resolve(sandboxId).resolve(containerId);
  }

  Path images() {
    return workDir.resolve(".images");
  }

  static void create(Path dir) {
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw unavailable("cannot create", dir, e);
    }
  }

  /**
   * Hands a container's directory to the cluster user its job runs as, so the job can write its
   * output there. On a shared file system that user has the same name on this node; returns false
   * when it does not resolve here, and the directory keeps its owner.
   */
  static boolean giveTo(Path dir, String user) {
    try {
      Files.setOwner(dir, dir.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByName(user));
      return true;
    } catch (UserPrincipalNotFoundException e) {
      return false;
    } catch (IOException e) {
      throw unavailable("cannot hand to user " + user, dir, e);
    }
  }

  /**
   * Removes a directory tree; a tree already gone counts as removed. A job owns its container's
   * directory and can put links in it, so the removal never follows one ({@link UntrustedTree}).
   */
  static void delete(Path dir) {
    try {
      UntrustedTree.remove(dir);
    } catch (IOException e) {
      throw unavailable("cannot remove", dir, e);
    }
  }

  private static CrigateException.Unavailable unavailable(String what, Path dir, IOException e) {
    return new CrigateException.Unavailable("shared work dir: %s %s: %s".formatted(what, dir, e), e);
  }
}

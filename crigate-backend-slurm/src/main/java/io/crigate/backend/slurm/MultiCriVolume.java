package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.Mount;
import io.crigate.spi.CrigateException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Optional;

/**
 * multi-cri's volume convention: a container mount whose container path is {@code multicri} marks
 * the shared (NFS) volume that the cluster has mounted at {@code <workDir>/<claim>}. The claim is
 * the last element of the mount's host path, as multi-cri took it: the kubelet names that directory
 * after the PersistentVolume, which multi-cri's README names like its claim.
 */
record MultiCriVolume(String claim) {

  static final String CONTAINER_PATH = "multicri";

  /** The container's multicri mount, if it has one; a host path that names no usable claim is refused. */
  static Optional<MultiCriVolume> of(ContainerConfig container) {
    return container.getMountsList().stream().filter(m -> m.getContainerPath().equals(CONTAINER_PATH)).findFirst()
        .map(mount -> new MultiCriVolume(claim(container.getMetadata().getName(), mount)));
  }

  /**
   * The claim becomes one directory under the work dir, beside the pods' directories and crigate's
   * own {@code .images}: so it must be a single name that is not hidden.
   */
  private static String claim(String container, Mount mount) {
    String name = lastElement(mount.getHostPath());
    if (name.isEmpty() || name.startsWith(".")) {
      throw new CrigateException.InvalidArgument(("container %s: the volume mounted at '%s' has host path '%s', whose last "
          + "element is not a volume name; crigate keeps results under <workDir>/<that name>, as multi-cri did")
          .formatted(container, CONTAINER_PATH, mount.getHostPath()));
    }
    return name;
  }

  /** The host path's last element; empty when it has none or is no path (a NUL byte). */
  private static String lastElement(String hostPath) {
    try {
      Path last = hostPath.isEmpty() ? null : Path.of(hostPath).getFileName();
      return last == null ? "" : last.toString();
    } catch (InvalidPathException e) {
      return "";
    }
  }

  /** The line the job prints first, so the container's log says where its results are, as multi-cri's did. */
  String announcement(Path results, String sandboxId, String containerId) {
    return "crigate: volume %s is mounted at %s; this container's results are in %s/%s of the volume (%s on the cluster)"
        .formatted(claim, CONTAINER_PATH, sandboxId, containerId, results);
  }
}

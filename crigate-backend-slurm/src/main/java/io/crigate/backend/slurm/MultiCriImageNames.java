package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;

/**
 * multi-cri's image names (its README, "Image specification"), turned into the references crigate's
 * runners take, or refused naming what to write instead. multi-cri needed them because the kubelet
 * of its day told the image service nothing about the pod: an image of its RuntimeClass began with
 * {@code multicri/}, then named where the image came from:
 *
 * <ul>
 *   <li>{@code docker-repository.NAME} (the README's job examples write {@code docker.NAME}): the
 *       registry image NAME, which is what crigate's runners pull anyway: it becomes {@code NAME};
 *   <li>{@code multicri/NAME} without a source: the same;
 *   <li>{@code singularity-repository.NAME} (also spelled {@code sigularity-repository.}): an image of
 *       Singularity Hub, which has been read-only since 2021 and which crigate's runners do not pull
 *       from: refused;
 *   <li>{@code local-image.FILE}: a file in the container's NFS volume, which multi-cri found through
 *       the mount named {@code multicri}; crigate takes the file's absolute path on the cluster
 *       instead: refused, naming that.
 * </ul>
 *
 * Any other name is an ordinary reference and is returned unchanged.
 */
final class MultiCriImageNames {

  private static final String RUNTIME_CLASS = "multicri/";
  private static final String DOCKER = "docker-repository.";
  private static final String DOCKER_SHORT = "docker.";
  private static final String SINGULARITY = "singularity-repository.";
  private static final String SINGULARITY_TYPO = "sigularity-repository.";
  private static final String LOCAL = "local-image.";

  private MultiCriImageNames() {}

  /** The reference crigate's runner uses for {@code image}. */
  static String resolve(String image) {
    boolean prefixed = image.startsWith(RUNTIME_CLASS);
    String name = prefixed ? image.substring(RUNTIME_CLASS.length()) : image;
    if (name.startsWith(DOCKER)) {
      return name.substring(DOCKER.length());
    }
    if (prefixed && name.startsWith(DOCKER_SHORT)) {
      return name.substring(DOCKER_SHORT.length());
    }
    if (name.startsWith(SINGULARITY) || name.startsWith(SINGULARITY_TYPO)) {
      String hub = name.substring(name.indexOf('.') + 1).replaceFirst(":[^/:]*$", "");
      throw new CrigateException.InvalidArgument(("image %s is multi-cri's name for shub://%s: crigate does not pull from "
          + "Singularity Hub (read-only since 2021); give the image's registry reference instead (e.g. %s pushed to a "
          + "registry), or the absolute path of its .sif file on the cluster").formatted(image, hub, name.substring(name.indexOf('.') + 1)));
    }
    if (name.startsWith(LOCAL)) {
      String file = name.substring(LOCAL.length());
      throw new CrigateException.InvalidArgument(("image %s is multi-cri's name for %s in the volume mounted at 'multicri': "
          + "crigate takes the image file's absolute path on the cluster instead (e.g. $HOME/<CRI_SLURM_MOUNT_PATH>/<claim>/%s)")
          .formatted(image, file, file));
    }
    return prefixed ? name : image;
  }
}

package io.crigate.spi.adjust;

import java.util.Objects;

/**
 * A bind mount to add to a container, or to replace the one it has at the same place: the host's
 * {@code hostPath} (a file or a directory, bound recursively) appears at {@code containerPath}.
 * Both paths are absolute; each door spells it as its transport does (a CRI {@code Mount}, an NRI
 * {@code bind} mount with {@code rbind}, plus {@code ro} when read-only).
 *
 * @param containerPath where it appears in the container; the key two plugins conflict on
 * @param hostPath what is mounted, on the node
 * @param readOnly mounted read-only
 */
public record Mount(String containerPath, String hostPath, boolean readOnly) {

  public Mount {
    requireAbsolute("container path", containerPath);
    requireAbsolute("host path", hostPath);
  }

  /** {@code path} bound read-write at the same path in the container. */
  public static Mount samePath(String path) {
    return new Mount(path, path, false);
  }

  private static void requireAbsolute(String what, String path) {
    Objects.requireNonNull(path, what);
    if (!path.startsWith("/")) {
      throw new IllegalArgumentException("mount %s '%s' is not an absolute path".formatted(what, path));
    }
  }
}

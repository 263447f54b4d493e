package io.crigate.nri;

import io.crigate.spi.adjust.Mount;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The engine's {@link Mount} as NRI spells it, and back: type {@code bind} with options
 * {@code [rbind]}, or {@code [rbind, ro]} when read-only, which is how runtimes' OCI mounts say
 * "this host path, recursively, at that container path". Any other spelling (another type, a
 * propagation or {@code rw} option, a relative path, NRI's {@code -<path>} removal mark, a second
 * mount at one path) means something a {@link Mount} cannot say, and is returned as dropped.
 */
final class NriMounts {

  static final String BIND = "bind";
  static final String RBIND = "rbind";
  static final String RO = "ro";

  private NriMounts() {}

  /** @param dropped the plugins' mounts that do not map to a {@link Mount}, as they were sent */
  record Read(List<Mount> mounts, List<io.crigate.api.nri.v1alpha1.Mount> dropped) {}

  static io.crigate.api.nri.v1alpha1.Mount nri(Mount m) {
    var b = io.crigate.api.nri.v1alpha1.Mount.newBuilder().setDestination(m.containerPath()).setSource(m.hostPath())
        .setType(BIND).addOptions(RBIND);
    if (m.readOnly()) {
      b.addOptions(RO);
    }
    return b.build();
  }

  static Read read(List<io.crigate.api.nri.v1alpha1.Mount> mounts) {
    List<Mount> read = new ArrayList<>(mounts.size());
    List<io.crigate.api.nri.v1alpha1.Mount> dropped = new ArrayList<>();
    Set<String> paths = new HashSet<>();
    for (var m : mounts) {
      Set<String> options = Set.copyOf(m.getOptionsList());
      boolean clean = m.getType().equals(BIND) && options.size() == m.getOptionsCount()
          && (options.equals(Set.of(RBIND)) || options.equals(Set.of(RBIND, RO)))
          && m.getDestination().startsWith("/") && m.getSource().startsWith("/");
      if (clean && paths.add(m.getDestination())) {
        read.add(new Mount(m.getDestination(), m.getSource(), options.contains(RO)));
      } else {
        dropped.add(m);
      }
    }
    return new Read(read, dropped);
  }

  /** One mount for a log line: {@code source:destination (type [options])}. */
  static String describe(io.crigate.api.nri.v1alpha1.Mount m) {
    return "%s:%s (%s %s)".formatted(m.getSource(), m.getDestination(), m.getType(), m.getOptionsList());
  }
}

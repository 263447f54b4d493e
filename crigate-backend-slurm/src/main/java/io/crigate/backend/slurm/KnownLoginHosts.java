package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import org.apache.sshd.client.config.hosts.KnownHostEntry;

/**
 * The hosts containers may name in CLUSTER_HOST: those with a key in the configured known_hosts
 * file. Checked before any connection is opened, so a pod cannot use crigate to probe other
 * machines, and the refusal names the file to edit.
 */
record KnownLoginHosts(Path file) {

  void check(ClusterLogin login, String container) {
    try {
      if (KnownHostEntry.readKnownHostEntries(file).stream().noneMatch(e -> e.isHostMatch(login.host(), login.port()))) {
        throw new CrigateException.InvalidArgument(("container %s: CLUSTER_HOST %s (port %d) has no key in %s; crigate "
            + "logs in only to hosts listed there").formatted(container, login.host(), login.port(), file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

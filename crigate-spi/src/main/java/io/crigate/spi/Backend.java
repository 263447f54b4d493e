package io.crigate.spi;

import java.util.Optional;

/**
 * A place where pods run: a remote CRI runtime such as containerd, or an adapter onto a batch
 * system. Created once per configured backend by its {@link BackendFactory}; closed on shutdown.
 */
public interface Backend extends RuntimeBackend, ImageBackend, AutoCloseable {

  /** The configured name, unique within one crigate. */
  String name();

  /**
   * The non-blocking form of this backend, if it has one. Backends without it (those that block on
   * a batch system or a database) are called on a bounded executor core keeps for each of them,
   * never on an event loop.
   */
  default Optional<AsyncCalls> async() {
    return Optional.empty();
  }

  /**
   * The host user this backend's containers run as, where the backend names one other than
   * crigate's own (a Slurm backend logged in as a cluster account). Files crigate prepares for its
   * containers, such as an interLink pod's volumes, are handed to that user. Empty when the
   * containers run as crigate or as their runtime decides.
   */
  default Optional<String> workloadUser() {
    return Optional.empty();
  }

  @Override
  void close();
}

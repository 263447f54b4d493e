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

  @Override
  void close();
}

package io.crigate.spi;

/**
 * A place where pods run: a remote CRI runtime such as containerd, or an adapter onto a batch
 * system. Created once per configured backend by its {@link BackendFactory}; closed on shutdown.
 */
public interface Backend extends RuntimeBackend, ImageBackend, AutoCloseable {

  /** The configured name, unique within one crigate. */
  String name();

  @Override
  void close();
}

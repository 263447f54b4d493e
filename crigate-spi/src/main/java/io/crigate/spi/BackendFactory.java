package io.crigate.spi;

/**
 * Builds one kind of backend from its configuration. The CLI keeps one explicit map from
 * {@link #type()} to factory; there is no classpath scanning.
 */
public interface BackendFactory {

  /** The {@code type:} value in configuration that selects this factory, e.g. {@code cri}. */
  String type();

  /**
   * Creates the backend. Must not block on the backend's availability: an unreachable runtime is
   * reported later, per call, as {@link CrigateException.Unavailable}.
   *
   * @throws CrigateException.InvalidArgument when the configuration is unusable
   */
  Backend create(InitContext context);
}

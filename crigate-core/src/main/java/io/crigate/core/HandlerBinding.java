package io.crigate.core;

/**
 * Binds a RuntimeClass handler, as the kubelet names it, to the backend that runs its pods.
 *
 * @param handler the name the kubelet sends; {@code default} stands for the empty handler
 * @param backend the configured backend name
 * @param backendHandler the handler name forwarded to the backend, usually empty so a remote
 *     runtime uses its own default (containerd rejects handlers it does not know)
 */
public record HandlerBinding(String handler, String backend, String backendHandler) {

  /** The handler that an empty {@code runtime_handler} selects. */
  public static final String DEFAULT_HANDLER = "default";

  /** Maps the kubelet's empty handler onto {@link #DEFAULT_HANDLER}. */
  public static String normalize(String handler) {
    return handler == null || handler.isEmpty() ? DEFAULT_HANDLER : handler;
  }
}

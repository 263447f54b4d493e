package io.crigate.transport.relay;

/**
 * What the relay reports about one relayed call, and the limit it enforces on the upstream's
 * behalf. Called on the event loop of the inbound stream.
 */
public interface CallWatch {

  /** No limit of the relay's own; nothing reported. */
  CallWatch NONE = new CallWatch() {
    @Override
    public long timeoutNanos() {
      return 0;
    }

    @Override
    public String timedOut() {
      throw new IllegalStateException("no timeout was set");
    }

    @Override
    public String lost(String why) {
      return "crigate's call server is unavailable: " + why;
    }

    @Override
    public void ended(int grpcStatus, long nanos) {}
  };

  /**
   * How long the upstream may take before the call ends with UNAVAILABLE ({@link #timedOut()});
   * 0: only the caller's own deadline. The relay arms it only when the caller allows more.
   */
  long timeoutNanos();

  /** The upstream let {@link #timeoutNanos()} pass: returns the UNAVAILABLE description. */
  String timedOut();

  /** The upstream's connection failed or was lost mid-call: returns the UNAVAILABLE description. */
  String lost(String why);

  /**
   * The call ended with {@code grpcStatus} after {@code nanos}; not called when the caller cancelled.
   * Runs before the call's last frame is passed to the caller, so whatever it records is in place
   * by the time the caller can see the answer (a relayed removal's dropped record: a kubelet that
   * lists or creates again at once sees it gone). It runs on the caller's event loop: quick, never
   * blocking.
   */
  void ended(int grpcStatus, long nanos);
}

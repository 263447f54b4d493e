package io.crigate.spi;

/**
 * The closed set of failures crigate's own code raises. Core maps each kind to exactly one gRPC
 * status in one place, so adding a kind here fails to compile until it is mapped there.
 *
 * <p>Messages name the object concerned ("sandbox 1a2b…"), because they reach the kubelet log
 * and the operator unchanged.
 */
public abstract sealed class CrigateException extends RuntimeException
    permits CrigateException.NotFound,
        CrigateException.AlreadyExists,
        CrigateException.InvalidArgument,
        CrigateException.FailedPrecondition,
        CrigateException.PermissionDenied,
        CrigateException.Unavailable,
        CrigateException.Unimplemented {

  protected CrigateException(String message, Throwable cause) {
    super(message, cause);
  }

  /** The named sandbox, container or image does not exist on any backend. */
  public static final class NotFound extends CrigateException {
    public NotFound(String message) {
      super(message, null);
    }
  }

  /** An object with that identity already exists. */
  public static final class AlreadyExists extends CrigateException {
    public AlreadyExists(String message) {
      super(message, null);
    }
  }

  /** The request itself is malformed: a missing field, an unknown handler, a bad value. */
  public static final class InvalidArgument extends CrigateException {
    public InvalidArgument(String message) {
      super(message, null);
    }
  }

  /** The request is well formed but the object is in the wrong state for it. */
  public static final class FailedPrecondition extends CrigateException {
    public FailedPrecondition(String message) {
      super(message, null);
    }
  }

  /** A system behind a backend refused the identity the request brought (a cluster login, say). */
  public static final class PermissionDenied extends CrigateException {
    public PermissionDenied(String message) {
      super(message, null);
    }
  }

  /**
   * A backend cannot be reached right now. Never reported as NotFound: the kubelet would take a
   * missing container for a dead one and recreate it.
   */
  public static final class Unavailable extends CrigateException {
    public Unavailable(String message) {
      super(message, null);
    }

    public Unavailable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /** The backend does not offer this operation (for example streaming exec on a batch system). */
  public static final class Unimplemented extends CrigateException {
    public Unimplemented(String message) {
      super(message, null);
    }
  }
}

package io.crigate.core;

import io.crigate.spi.CrigateException;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.grpc.StatusException;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The only place that turns crigate's errors into gRPC statuses. */
final class GrpcErrors {

  private static final Logger log = LoggerFactory.getLogger(GrpcErrors.class);

  private GrpcErrors() {}

  /**
   * Maps {@code t} to the status the kubelet sees: each {@link CrigateException} kind to its code, a
   * backend's own gRPC status unchanged, anything else to {@code INTERNAL} (logged, as it is a bug).
   */
  public static StatusRuntimeException toStatus(Throwable t) {
    return switch (unwrap(t)) {
      case StatusRuntimeException fromBackend -> fromBackend;
      case StatusException fromBackend -> fromBackend.getStatus().asRuntimeException(fromBackend.getTrailers());
      case CrigateException crigate -> code(crigate).withDescription(crigate.getMessage()).withCause(crigate).asRuntimeException();
      case Throwable other -> {
        log.error("internal error answered as INTERNAL", other);
        yield Status.INTERNAL.withDescription(other.toString()).withCause(other).asRuntimeException();
      }
    };
  }

  /** Installs {@link #toStatus} for exceptions that handlers throw; without it grpc-java answers UNKNOWN. */
  public static ServerInterceptor interceptor() {
    return new ServerInterceptor() {
      @Override
      public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
          ServerCallHandler<Q, R> next) {
        return new MappingListener<>(next.startCall(call, headers), call);
      }
    };
  }

  /** The status code of {@code t} as {@link #toStatus} would answer it, without logging. */
  static Status.Code codeOf(Throwable t) {
    return switch (unwrap(t)) {
      case StatusRuntimeException fromBackend -> fromBackend.getStatus().getCode();
      case StatusException fromBackend -> fromBackend.getStatus().getCode();
      case CrigateException crigate -> code(crigate).getCode();
      case Throwable other -> Status.Code.INTERNAL;
    };
  }

  private static Status code(CrigateException e) {
    return switch (e) {
      case CrigateException.NotFound notFound -> Status.NOT_FOUND;
      case CrigateException.AlreadyExists alreadyExists -> Status.ALREADY_EXISTS;
      case CrigateException.InvalidArgument invalidArgument -> Status.INVALID_ARGUMENT;
      case CrigateException.FailedPrecondition failedPrecondition -> Status.FAILED_PRECONDITION;
      case CrigateException.PermissionDenied permissionDenied -> Status.PERMISSION_DENIED;
      case CrigateException.Unavailable unavailable -> Status.UNAVAILABLE;
      case CrigateException.Unimplemented unimplemented -> Status.UNIMPLEMENTED;
    };
  }

  /** Fan-outs wrap a backend's failure; the kubelet should see the failure itself. */
  private static Throwable unwrap(Throwable t) {
    Throwable current = t;
    while ((current instanceof CompletionException || current instanceof ExecutionException) && current.getCause() != null) {
      current = current.getCause();
    }
    return current;
  }

  private static final class MappingListener<Q, R> extends SimpleForwardingServerCallListener<Q> {
    private final ServerCall<Q, R> call;

    MappingListener(ServerCall.Listener<Q> delegate, ServerCall<Q, R> call) {
      super(delegate);
      this.call = call;
    }

    @Override
    public void onMessage(Q message) {
      try {
        super.onMessage(message);
      } catch (RuntimeException e) {
        close(e);
      }
    }

    @Override
    public void onHalfClose() {
      try {
        super.onHalfClose();
      } catch (RuntimeException e) {
        close(e);
      }
    }

    private void close(RuntimeException e) {
      StatusRuntimeException status = toStatus(e);
      Metadata trailers = status.getTrailers();
      call.close(status.getStatus(), trailers == null ? new Metadata() : trailers);
    }
  }
}

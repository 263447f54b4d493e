package io.crigate.cli.ctl;

import io.crigate.spi.Causes;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.time.Duration;

/** Words a failed CRI call for the operator: which endpoint, which status, what the server said. */
final class CallFailure {

  private CallFailure() {}

  static String describe(StatusRuntimeException failure, String endpoint, Duration deadline) {
    Status status = failure.getStatus();
    // A status with a local cause never reached the server: the transport could not connect.
    if (status.getCode() == Status.Code.UNAVAILABLE && status.getCause() != null) {
      String reason =
          Files.exists(CriClient.socketPath(endpoint))
              ? rootCause(status.getCause())
              : "no socket file there";
      return "cannot connect to %s: is crigate running? (%s)".formatted(endpoint, reason);
    }
    if (status.getCode() == Status.Code.DEADLINE_EXCEEDED) {
      return "%s gave no answer within %s (DEADLINE_EXCEEDED; raise --timeout)"
          .formatted(endpoint, deadline);
    }
    String description = status.getDescription() == null ? "" : ": " + status.getDescription();
    return status.getCode() + description;
  }

  private static String rootCause(Throwable failure) {
    Throwable root = Causes.innermost(failure);
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}

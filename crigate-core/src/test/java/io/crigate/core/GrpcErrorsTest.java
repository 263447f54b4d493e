package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.spi.CrigateException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.util.concurrent.CompletionException;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class GrpcErrorsTest {

  record Case(String name, Throwable error, Status.Code code, String description) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> errors() {
    return Stream.of(
        new Case("NotFound", new CrigateException.NotFound("sandbox s1"), Status.Code.NOT_FOUND, "sandbox s1"),
        new Case("AlreadyExists", new CrigateException.AlreadyExists("sandbox s1"), Status.Code.ALREADY_EXISTS, "sandbox s1"),
        new Case("InvalidArgument", new CrigateException.InvalidArgument("config is required"), Status.Code.INVALID_ARGUMENT,
            "config is required"),
        new Case("FailedPrecondition", new CrigateException.FailedPrecondition("stopped"), Status.Code.FAILED_PRECONDITION, "stopped"),
        new Case("PermissionDenied", new CrigateException.PermissionDenied("login refused"), Status.Code.PERMISSION_DENIED, "login refused"),
        new Case("Unavailable", new CrigateException.Unavailable("backend b down"), Status.Code.UNAVAILABLE, "backend b down"),
        new Case("Unimplemented", new CrigateException.Unimplemented("Exec"), Status.Code.UNIMPLEMENTED, "Exec"),
        // A fan-out wraps the backend's failure; the kubelet must see the failure itself.
        new Case("wrapped by a future", new CompletionException(new CrigateException.NotFound("container c1")),
            Status.Code.NOT_FOUND, "container c1"),
        new Case("a bug", new IllegalStateException("oops"), Status.Code.INTERNAL, "java.lang.IllegalStateException: oops"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("errors")
  void mapsEachKindToItsStatus(Case c) {
    StatusRuntimeException status = GrpcErrors.toStatus(c.error());
    assertThat(status.getStatus().getCode()).isEqualTo(c.code());
    assertThat(status.getStatus().getDescription()).isEqualTo(c.description());
  }

  @Test
  void aBackendsOwnStatusPassesThroughUnchanged() {
    StatusRuntimeException fromContainerd = Status.DEADLINE_EXCEEDED.withDescription("context deadline exceeded").asRuntimeException();
    assertThat(GrpcErrors.toStatus(fromContainerd)).isSameAs(fromContainerd);
  }
}

package io.crigate.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.StatusRequest;
import io.crigate.api.cri.v1.StatusResponse;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.api.cri.v1.VersionResponse;
import io.crigate.spi.AsyncCalls;
import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.InitContext;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MeteredBackendsTest {

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private final AtomicBoolean down = new AtomicBoolean();

  /** Answers Version blocking and Status non-blocking; both fail as an outage while {@link #down}. */
  private final class Remote implements AsyncCalls {
    @Override
    @SuppressWarnings("unchecked")
    public <Q, R> CompletionStage<R> call(MethodDescriptor<Q, R> method, Q request, Optional<Duration> timeout) {
      if (down.get()) {
        return CompletableFuture.failedFuture(Status.UNAVAILABLE.withDescription("refused").asRuntimeException());
      }
      return CompletableFuture.completedFuture((R) StatusResponse.getDefaultInstance());
    }
  }

  private Backend backend() {
    Remote remote = new Remote();
    return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class},
        (proxy, method, args) -> switch (method.getName()) {
          case "name" -> "edge";
          case "async" -> Optional.of(remote);
          case "version" -> {
            if (down.get()) {
              throw new CrigateException.Unavailable("backend edge: connection refused");
            }
            yield VersionResponse.newBuilder().setVersion("0.1.0").build();
          }
          default -> null;
        });
  }

  private Backend metered(Path dir) {
    BackendFactory factory = new BackendFactory() {
      @Override
      public String type() {
        return "remote";
      }

      @Override
      public Backend create(InitContext context) {
        return backend();
      }
    };
    return new MeteredBackends(registry).wrap(Map.of("remote", factory)).get("remote")
        .create(new InitContext("edge", null, dir, null, Clock.systemUTC(), null));
  }

  @Test
  void timesBlockingAndNonBlockingCallsByBackendAndMethodAndTellsWhetherItIsUp(@TempDir Path dir) throws Exception {
    Backend backend = metered(dir);

    backend.version(VersionRequest.getDefaultInstance());
    AsyncCalls async = backend.async().orElseThrow();
    async.call(RuntimeServiceGrpc.getStatusMethod(), StatusRequest.getDefaultInstance(), Optional.empty()).toCompletableFuture().join();
    async.call(RuntimeServiceGrpc.getStatusMethod(), StatusRequest.getDefaultInstance(), Optional.empty()).toCompletableFuture().join();

    assertThat(calls("Version")).isEqualTo(1);
    assertThat(calls("Status")).as("the fast path is measured too").isEqualTo(2);
    assertThat(up()).isEqualTo(1);

    down.set(true);
    assertThatThrownBy(() -> async.call(RuntimeServiceGrpc.getStatusMethod(), StatusRequest.getDefaultInstance(), Optional.empty())
        .toCompletableFuture().join()).hasRootCauseMessage("UNAVAILABLE: refused");
    assertThat(up()).as("a remote runtime's UNAVAILABLE").isEqualTo(0);
    assertThat(calls("Status")).isEqualTo(3);

    down.set(false);
    backend.version(VersionRequest.getDefaultInstance());
    assertThat(up()).isEqualTo(1);
    down.set(true);
    assertThatThrownBy(() -> backend.version(VersionRequest.getDefaultInstance()))
        .isInstanceOf(CrigateException.Unavailable.class);
    assertThat(up()).as("crigate's own Unavailable").isEqualTo(0);
  }

  @Test
  void theGatewaysOwnWritesShareTheWriteHistogramUnderTheirOwnStore() {
    MeteredBackends metered = new MeteredBackends(registry);

    metered.ownershipWrites().accept(2_000_000);
    metered.ownershipWrites().accept(4_000_000);

    HistogramSnapshot.HistogramDataPointSnapshot writes = registry.scrape().stream()
        .filter(s -> s.getMetadata().getName().equals("crigate_db_write_duration_seconds"))
        .map(HistogramSnapshot.class::cast).flatMap(s -> s.getDataPoints().stream())
        .filter(p -> p.getLabels().equals(Labels.of("store", MeteredBackends.GATEWAY_STORE)))
        .findFirst().orElseThrow();
    assertThat(writes.getCount()).isEqualTo(2);
    assertThat(writes.getSum()).isCloseTo(0.006, org.assertj.core.data.Offset.offset(1e-9));
  }

  private long calls(String method) {
    return registry.scrape().stream()
        .filter(s -> s.getMetadata().getName().equals("crigate_backend_request_duration_seconds"))
        .map(HistogramSnapshot.class::cast).flatMap(s -> s.getDataPoints().stream())
        .filter(p -> p.getLabels().equals(Labels.of("backend", "edge", "method", method)))
        .mapToLong(p -> p.getCount()).sum();
  }

  private double up() {
    return registry.scrape().stream().filter(s -> s.getMetadata().getName().equals("crigate_backend_up"))
        .map(GaugeSnapshot.class::cast).flatMap(s -> s.getDataPoints().stream())
        .filter(p -> p.getLabels().equals(Labels.of("backend", "edge"))).mapToDouble(p -> p.getValue()).sum();
  }
}

package io.crigate.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.StatusRequest;
import io.crigate.api.cri.v1.StatusResponse;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.api.cri.v1.VersionResponse;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.ServerInterceptors;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.inprocess.InProcessChannelBuilder;
import io.grpc.inprocess.InProcessServerBuilder;
import io.grpc.stub.StreamObserver;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.HistogramSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class RpcMetricsTest {

  private final PrometheusRegistry registry = new PrometheusRegistry();
  private Server server;
  private ManagedChannel channel;

  /** Version answers; Status fails as a backend outage would, after core mapped it. */
  static final class Runtime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
    @Override
    public void version(VersionRequest request, StreamObserver<VersionResponse> response) {
      response.onNext(VersionResponse.newBuilder().setVersion("0.1.0").build());
      response.onCompleted();
    }

    @Override
    public void status(StatusRequest request, StreamObserver<StatusResponse> response) {
      response.onError(Status.UNAVAILABLE.withDescription("backend down").asRuntimeException());
    }
  }

  @AfterEach
  void stop() {
    channel.shutdownNow();
    server.shutdownNow();
  }

  private RuntimeServiceGrpc.RuntimeServiceBlockingStub start() throws Exception {
    String name = InProcessServerBuilder.generateName();
    server = InProcessServerBuilder.forName(name).directExecutor()
        .addService(ServerInterceptors.intercept(new Runtime(), new RpcMetrics(registry))).build().start();
    channel = InProcessChannelBuilder.forName(name).directExecutor().build();
    return RuntimeServiceGrpc.newBlockingStub(channel);
  }

  @Test
  void countsEveryCallByMethodAndFailuresByCode() throws Exception {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = start();
    runtime.version(VersionRequest.getDefaultInstance());
    runtime.version(VersionRequest.getDefaultInstance());
    assertThatThrownBy(() -> runtime.status(StatusRequest.getDefaultInstance())).isInstanceOf(StatusRuntimeException.class);

    assertThat(latencyCount("Version")).isEqualTo(2);
    assertThat(latencyCount("Status")).isEqualTo(1);
    assertThat(errors("Status", "UNAVAILABLE")).isEqualTo(1);
    assertThat(errors("Version", "UNAVAILABLE")).as("successful calls are no errors").isZero();
  }

  private long latencyCount(String method) {
    return registry.scrape().stream().filter(s -> s.getMetadata().getName().equals("crigate_cri_request_duration_seconds"))
        .map(HistogramSnapshot.class::cast).flatMap(s -> s.getDataPoints().stream())
        .filter(p -> p.getLabels().equals(Labels.of("method", method))).mapToLong(p -> p.getCount()).sum();
  }

  private double errors(String method, String code) {
    return registry.scrape().stream().filter(s -> s.getMetadata().getName().equals("crigate_cri_request_errors"))
        .map(CounterSnapshot.class::cast).flatMap(s -> s.getDataPoints().stream())
        .filter(p -> p.getLabels().equals(Labels.of("code", code, "method", method))).mapToDouble(p -> p.getValue()).sum();
  }
}

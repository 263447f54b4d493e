package io.crigate.metrics;

import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Counter;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Latency of every CRI call as the kubelet sees it (from the call's arrival to its status), and
 * failures by gRPC code. Installed outermost, so it counts the codes errors were mapped to. On the
 * fast path it costs one map lookup, two {@code nanoTime} reads and one histogram observation: the
 * data point of each method is resolved once, not per call.
 */
public final class RpcMetrics implements ServerInterceptor {

  private final Histogram latency;
  private final Counter errors;
  private final Map<String, DistributionDataPoint> byMethod = new ConcurrentHashMap<>();

  public RpcMetrics(PrometheusRegistry registry) {
    latency = Histogram.builder().name("crigate_cri_request_duration_seconds").unit(Unit.SECONDS)
        .help("CRI calls served by crigate, from arrival to status, by method")
        .labelNames("method").classicOnly().classicUpperBounds(Buckets.CALL_SECONDS).register(registry);
    errors = Counter.builder().name("crigate_cri_request_errors_total")
        .help("CRI calls that ended with a status other than OK, by method and gRPC code")
        .labelNames("method", "code").register(registry);
  }

  @Override
  public <Q, R> ServerCall.Listener<Q> interceptCall(ServerCall<Q, R> call, Metadata headers,
      ServerCallHandler<Q, R> next) {
    long start = System.nanoTime();
    String method = call.getMethodDescriptor().getBareMethodName();
    return next.startCall(new SimpleForwardingServerCall<>(call) {
      @Override
      public void close(Status status, Metadata trailers) {
        observe(method, status.getCode(), System.nanoTime() - start);
        super.close(status, trailers);
      }
    }, headers);
  }

  /**
   * Counts one call that ended with {@code code} after {@code nanos}: those the interceptor sees,
   * and those core relays below the gRPC call layer, which no interceptor sees.
   */
  public void observe(String method, Status.Code code, long nanos) {
    byMethod.computeIfAbsent(method, latency::labelValues).observe(nanos / 1e9);
    if (code != Status.Code.OK) {
      errors.labelValues(method, code.name()).inc();
    }
  }
}

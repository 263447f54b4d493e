package io.crigate.metrics;

import io.crigate.spi.AsyncCalls;
import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.Causes;
import io.crigate.spi.CrigateException;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.core.metrics.Gauge;
import io.prometheus.metrics.core.metrics.Histogram;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.Unit;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongConsumer;
import java.util.stream.Collectors;

/**
 * Wraps every backend a factory creates, to time each call by backend and method and to tell
 * whether the backend answers. One dynamic proxy rather than a decorator with a method per CRI call:
 * the SPI grows with CRI, and a forgotten method would go unmeasured. A backend's non-blocking form
 * ({@link Backend#async()}), which core prefers for routed calls, is timed too. Each backend also
 * gets its durable store timed ({@link MeteredDurableStore}).
 */
public final class MeteredBackends {

  /** The store label of the gateway's own records; backends' stores carry the backend's name. */
  public static final String GATEWAY_STORE = "crigate";

  private final Histogram latency;
  private final Gauge up;
  private final MeteredDurableStore.Writes writes;

  public MeteredBackends(PrometheusRegistry registry) {
    latency = Histogram.builder().name("crigate_backend_request_duration_seconds").unit(Unit.SECONDS)
        .help("Calls from crigate into a backend, by backend and CRI method")
        .labelNames("backend", "method").classicOnly().classicUpperBounds(Buckets.CALL_SECONDS).register(registry);
    up = Gauge.builder().name("crigate_backend_up")
        .help("1 when the backend's last call was answered (even with an error), 0 when it was unavailable")
        .labelNames("backend").register(registry);
    writes = new MeteredDurableStore.Writes(registry);
  }

  /**
   * The gateway's own ownership writes (sandbox and container records), timed in the same histogram
   * as the backends' stores under store {@value #GATEWAY_STORE}.
   */
  public LongConsumer ownershipWrites() {
    return writes.nanosOf(GATEWAY_STORE);
  }

  public Map<String, BackendFactory> wrap(Map<String, BackendFactory> factories) {
    return factories.entrySet().stream().collect(Collectors.toUnmodifiableMap(Map.Entry::getKey,
        entry -> metered(entry.getValue())));
  }

  private BackendFactory metered(BackendFactory factory) {
    return new BackendFactory() {
      @Override
      public String type() {
        return factory.type();
      }

      @Override
      public Backend create(io.crigate.spi.InitContext context) {
        Backend backend = factory.create(context.withStore(writes.of("backend:" + context.name(), context.store())));
        up.labelValues(context.name()).set(1);
        return (Backend) Proxy.newProxyInstance(Backend.class.getClassLoader(), new Class<?>[] {Backend.class},
            new Timing(backend, context.name()));
      }
    };
  }

  private final class Timing implements InvocationHandler {
    private final Backend backend;
    private final String name;
    private final Map<Method, DistributionDataPoint> byMethod = new ConcurrentHashMap<>();
    private final Optional<AsyncCalls> async;

    Timing(Backend backend, String name) {
      this.backend = backend;
      this.name = name;
      this.async = backend.async().map(calls -> new TimedAsync(calls, name));
    }

    @Override
    public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
      if (method.getName().equals("async") && method.getParameterCount() == 0) {
        // the fast path: core routes most calls through this form, so it is timed as well
        return async;
      }
      if (method.getParameterCount() == 0 || method.getReturnType() == void.class) {
        // name(), close(), equals...: not CRI calls; GetContainerEvents streams for as long as the
        // kubelet listens, which is no latency
        try {
          return method.invoke(backend, args);
        } catch (InvocationTargetException e) {
          throw e.getCause();
        }
      }
      long start = System.nanoTime();
      try {
        Object result = method.invoke(backend, args);
        up.labelValues(name).set(1);
        return result;
      } catch (InvocationTargetException e) {
        up.labelValues(name).set(unavailable(e.getCause()) ? 0 : 1);
        throw e.getCause();
      } finally {
        byMethod.computeIfAbsent(method, m -> latency.labelValues(name, criName(m)))
            .observe((System.nanoTime() - start) / 1e9);
      }
    }
  }

  /** Times a backend's non-blocking calls from their start to the reply, on the thread that completes them. */
  private final class TimedAsync implements AsyncCalls {
    private final AsyncCalls calls;
    private final String name;
    private final Map<MethodDescriptor<?, ?>, DistributionDataPoint> byMethod = new ConcurrentHashMap<>();
    private final Map<String, DistributionDataPoint> relayedByRpc = new ConcurrentHashMap<>();

    TimedAsync(AsyncCalls calls, String name) {
      this.calls = calls;
      this.name = name;
    }

    @Override
    public <Q, R> CompletionStage<R> call(MethodDescriptor<Q, R> method, Q request, Optional<Duration> timeout) {
      long start = System.nanoTime();
      DistributionDataPoint point = byMethod.computeIfAbsent(method,
          m -> latency.labelValues(name, m.getBareMethodName()));
      return calls.call(method, request, timeout).whenComplete((reply, failure) -> {
        point.observe((System.nanoTime() - start) / 1e9);
        up.labelValues(name).set(failure != null && unavailable(failure) ? 0 : 1);
      });
    }

    @Override
    public Optional<Path> passThrough() {
      return calls.passThrough();
    }

    /** Core relayed the call's stream itself: timed from the relay's own clock. */
    @Override
    public void relayed(String rpc, Status.Code code, long nanos) {
      relayedByRpc.computeIfAbsent(rpc, m -> latency.labelValues(name, m)).observe(nanos / 1e9);
      up.labelValues(name).set(code == Status.Code.UNAVAILABLE ? 0 : 1);
    }
  }

  /** An outage of the backend itself, as crigate or a remote runtime reports it. */
  static boolean unavailable(Throwable failure) {
    Throwable cause = Causes.unwrapCompletion(failure);
    return cause instanceof CrigateException.Unavailable
        || Status.fromThrowable(cause).getCode() == Status.Code.UNAVAILABLE;
  }

  /** {@code runPodSandbox} is the CRI's {@code RunPodSandbox}. */
  static String criName(Method method) {
    String name = method.getName();
    return Character.toUpperCase(name.charAt(0)) + name.substring(1);
  }
}

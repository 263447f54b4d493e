package io.crigate.core;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import io.crigate.api.cri.v1.ContainerFilter;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.core.state.ContainerRecord;
import io.crigate.core.state.GatewayState;
import io.crigate.core.state.SandboxRecord;
import io.crigate.spi.AsyncCalls;
import io.crigate.spi.Backend;
import io.crigate.transport.UnixSocketChannel;
import io.crigate.transport.relay.CallWatch;
import io.crigate.transport.relay.Http2Upstream;
import io.crigate.transport.relay.Route;
import io.crigate.transport.relay.StreamRouter;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.netty.buffer.ByteBuf;
import io.netty.channel.EventLoopGroup;
import io.netty.util.AsciiString;
import java.io.IOException;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * Which CRI calls skip the gRPC call layer: a routed read (ContainerStatus, PodSandboxStatus and
 * their stats) whose owner is on record and is a healthy, connected backend that forwards calls
 * unchanged ({@link AsyncCalls#passThrough()}), StartContainer and StopContainer on the same terms
 * when no adjustment plugin follows the container (core then only forwards them), RemoveContainer
 * and RemovePodSandbox when no plugin follows the container or sandbox (core then only forwards them
 * and drops the record: see {@link Removal}), and the two runtime lists when that backend is the only
 * one (one part to merge, and core's filter re-application is a no-op for the filters the runtime
 * applies the same way). The stream goes to that runtime as bytes; only the owner's id is read from
 * the request. Everything else (calls that record ownership, StopPodSandbox, followed containers and
 * sandboxes, ownership misses, unhealthy backends, Slurm, dumped methods, id-filtered or merged
 * lists) goes to crigate's gRPC call server, which answers exactly as before.
 *
 * <p>Start, stop and the removals matter for the pod lifecycle: through the call server each crosses two more
 * HTTP/2 connections and grpc-java's call layer on both sides, code that the few lifecycle calls a
 * node makes never get the JIT to compile, so it costs milliseconds of crigate's CPU per call,
 * taken from the runtime on a small node (docs/benchmarks.md, issue 10).
 */
final class RelayRoutes implements AutoCloseable {

  /** What the relay reads from a request to route it. */
  private enum Kind {
    CONTAINER_ID(true), UNFOLLOWED_CONTAINER_ID(true), SANDBOX_ID(true), LIST_CONTAINERS(false), LIST_SANDBOXES(false),
    CONTAINER_REMOVAL(true), SANDBOX_REMOVAL(true);

    /** Whether the request names its object in field 1. */
    final boolean byId;

    Kind(boolean byId) {
      this.byId = byId;
    }
  }

  /**
   * Which objects an adjustment plugin follows (by id): their start, stop and removal need the call
   * layer, where the plugins hear of them.
   */
  record Followed(Predicate<String> container, Predicate<String> sandbox) {
    static final Followed NONE = new Followed(id -> false, id -> false);
  }

  /** Field 1, length-delimited: the tag of {@code container_id} and {@code pod_sandbox_id}. */
  private static final int ID_TAG = (1 << 3) | WireFormat.WIRETYPE_LENGTH_DELIMITED;

  private final Map<AsciiString, Kind> kinds;
  private final Map<AsciiString, String> rpcs;
  private final Map<String, Upstream> upstreams;
  private final Optional<Upstream> only;
  private final GatewayState state;
  private final BackendHealth health;
  private final Followed followed;
  private final Gateway.CallObserver observer;

  /** A backend that can take relayed streams. */
  private record Upstream(String name, AsyncCalls calls, Http2Upstream connection) {}

  private RelayRoutes(Map<AsciiString, Kind> kinds, Map<AsciiString, String> rpcs, Map<String, Upstream> upstreams,
      Optional<Upstream> only, GatewayState state, BackendHealth health, Followed followed,
      Gateway.CallObserver observer) {
    this.kinds = kinds;
    this.rpcs = rpcs;
    this.upstreams = upstreams;
    this.only = only;
    this.state = state;
    this.health = health;
    this.followed = followed;
    this.observer = observer;
  }

  /**
   * Empty when no backend forwards calls unchanged: then there is nothing to relay, and the gRPC
   * server serves the kubelet's socket itself.
   *
   * @param dumped whether the dump rules record a method (by full name); those calls need the call layer
   * @param followed which containers and sandboxes an adjustment plugin follows: their calls need the call layer
   */
  static Optional<RelayRoutes> of(BackendRoutes routes, GatewayState state, BackendHealth health, EventLoopGroup eventLoops,
      Predicate<String> dumped, Followed followed, Gateway.CallObserver observer) {
    Map<String, Upstream> upstreams = new LinkedHashMap<>();
    for (Backend backend : routes.all()) {
      backend.async().ifPresent(calls -> calls.passThrough().ifPresent(socket -> upstreams.put(backend.name(),
          new Upstream(backend.name(), calls,
              Http2Upstream.to(socket, eventLoops, UnixSocketChannel.DEFAULT_CONNECT_TIMEOUT)))));
    }
    if (upstreams.isEmpty()) {
      return Optional.empty();
    }
    upstreams.values().forEach(upstream -> upstream.connection().connectIfIdle());
    Map<AsciiString, Kind> kinds = new HashMap<>();
    Map<AsciiString, String> rpcs = new HashMap<>();
    Map<MethodDescriptor<?, ?>, Kind> candidates = Map.of(
        RuntimeServiceGrpc.getContainerStatusMethod(), Kind.CONTAINER_ID,
        RuntimeServiceGrpc.getContainerStatsMethod(), Kind.CONTAINER_ID,
        RuntimeServiceGrpc.getStartContainerMethod(), Kind.UNFOLLOWED_CONTAINER_ID,
        RuntimeServiceGrpc.getStopContainerMethod(), Kind.UNFOLLOWED_CONTAINER_ID,
        RuntimeServiceGrpc.getPodSandboxStatusMethod(), Kind.SANDBOX_ID,
        RuntimeServiceGrpc.getPodSandboxStatsMethod(), Kind.SANDBOX_ID,
        RuntimeServiceGrpc.getListContainersMethod(), Kind.LIST_CONTAINERS,
        RuntimeServiceGrpc.getListPodSandboxMethod(), Kind.LIST_SANDBOXES,
        RuntimeServiceGrpc.getRemoveContainerMethod(), Kind.CONTAINER_REMOVAL,
        RuntimeServiceGrpc.getRemovePodSandboxMethod(), Kind.SANDBOX_REMOVAL);
    candidates.forEach((method, kind) -> {
      if (!dumped.test(method.getFullMethodName())) {
        AsciiString path = AsciiString.of("/" + method.getFullMethodName());
        kinds.put(path, kind);
        rpcs.put(path, method.getBareMethodName());
      }
    });
    List<Backend> all = List.copyOf(routes.all());
    Optional<Upstream> only = all.size() == 1 ? Optional.ofNullable(upstreams.get(all.getFirst().name())) : Optional.empty();
    return Optional.of(new RelayRoutes(kinds, rpcs, upstreams, only, state, health, followed, observer));
  }

  /** The router for streams; what it does not relay to a backend goes to {@code callServer}. */
  StreamRouter router(Http2Upstream callServer) {
    Route toCallServer = Route.plain(callServer);
    return (path, message) -> {
      AsciiString key = AsciiString.of(path);
      Kind kind = kinds.get(key);
      if (kind == null || message == null) {
        return toCallServer;
      }
      Optional<String> id = kind.byId ? idOf(message) : Optional.empty();
      Upstream upstream = switch (kind) {
        case CONTAINER_ID -> ownerOfContainer(id);
        case UNFOLLOWED_CONTAINER_ID, CONTAINER_REMOVAL -> ownerOfContainer(id.filter(known -> !followed.container().test(known)));
        case SANDBOX_ID -> ownerOfSandbox(id);
        case SANDBOX_REMOVAL -> ownerOfSandbox(id.filter(known -> !followed.sandbox().test(known)));
        case LIST_CONTAINERS -> only.filter(any -> unfilteredById(containerFilter(message))).orElse(null);
        case LIST_SANDBOXES -> only.filter(any -> sandboxFilterHasNoId(message)).orElse(null);
      };
      if (upstream == null || !health.isHealthy(upstream.name())) {
        return toCallServer;
      }
      if (!upstream.connection().isConnected()) {
        upstream.connection().connectIfIdle(); // this call takes the call server's path; the next one is relayed
        return toCallServer;
      }
      String rpc = rpcs.get(key);
      return new Route(upstream.connection(), switch (kind) {
        case CONTAINER_REMOVAL -> new Removal(upstream, rpc, id.orElseThrow(), state.containers()::remove);
        case SANDBOX_REMOVAL -> new Removal(upstream, rpc, id.orElseThrow(), state.sandboxes()::remove);
        default -> new Watch(upstream, rpc);
      });
    };
  }

  /** The recorded owner of container {@code id} if it takes relayed streams; null otherwise. */
  private Upstream ownerOfContainer(Optional<String> id) {
    return id.flatMap(known -> state.containers().find(known)).map(ContainerRecord::backend).map(upstreams::get).orElse(null);
  }

  /** The recorded owner of sandbox {@code id} if it takes relayed streams; null otherwise. */
  private Upstream ownerOfSandbox(Optional<String> id) {
    return id.flatMap(known -> state.sandboxes().find(known)).map(SandboxRecord::backend).map(upstreams::get).orElse(null);
  }

  /** The id in field 1 ({@code container_id} or {@code pod_sandbox_id}); empty when absent or unreadable. */
  static Optional<String> idOf(ByteBuf message) {
    try {
      CodedInputStream in = CodedInputStream.newInstance(message.nioBuffer());
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (tag == ID_TAG) {
          String id = in.readStringRequireUtf8();
          return id.isEmpty() ? Optional.empty() : Optional.of(id);
        }
        in.skipField(tag);
      }
      return Optional.empty();
    } catch (IOException unreadable) {
      return Optional.empty(); // the call server answers with the parse error
    }
  }

  private static Optional<ContainerFilter> containerFilter(ByteBuf message) {
    try {
      return Optional.of(ListContainersRequest.parseFrom(message.nioBuffer()).getFilter());
    } catch (InvalidProtocolBufferException unreadable) {
      return Optional.empty();
    }
  }

  /** Filters by state and labels the runtime applies exactly as core would; an id prefix it may not. */
  private static boolean unfilteredById(Optional<ContainerFilter> filter) {
    return filter.isPresent() && filter.get().getId().isEmpty() && filter.get().getPodSandboxId().isEmpty();
  }

  private static boolean sandboxFilterHasNoId(ByteBuf message) {
    try {
      return ListPodSandboxRequest.parseFrom(message.nioBuffer()).getFilter().getId().isEmpty();
    } catch (InvalidProtocolBufferException unreadable) {
      return false;
    }
  }

  /** One relayed call's limit and reports: the backend's call timeout, health and metrics. */
  private class Watch implements CallWatch {
    private final Upstream upstream;
    private final String rpc;

    Watch(Upstream upstream, String rpc) {
      this.upstream = upstream;
      this.rpc = rpc;
    }

    @Override
    public long timeoutNanos() {
      return health.callTimeout(upstream.name()).toNanos();
    }

    /** As {@link BackendCalls} does for a call it forwarded: the backend is frozen or overloaded. */
    @Override
    public String timedOut() {
      String reason = "backend %s did not answer %s within its call timeout of %d ms"
          .formatted(upstream.name(), rpc, health.callTimeout(upstream.name()).toMillis());
      health.markUnhealthy(upstream.name(), reason);
      return reason;
    }

    @Override
    public String lost(String why) {
      return "%s: runtime at %s unavailable for %s: %s".formatted(upstream.name(),
          UnixSocketChannel.endpoint(upstream.connection().socket()), rpc, why);
    }

    @Override
    public void ended(int grpcStatus, long nanos) {
      Status.Code code = Status.fromCodeValue(grpcStatus).getCode();
      observer.ended(rpc, code, nanos);
      upstream.calls().relayed(rpc, code, nanos);
    }
  }

  /**
   * A relayed RemoveContainer or RemovePodSandbox. When the runtime answers OK, or NOT_FOUND (it no
   * longer has the object, so nothing is left to own), the record is dropped as the call layer's
   * removal drops it: from memory at once, from disk with the next transaction (a sandbox's
   * containers with it). {@link CallWatch#ended} runs before the answer's last frame is passed on,
   * so a kubelet that lists or creates again right after the answer finds the record gone. Another
   * answer (the runtime failed, timed out or was lost) keeps the record, and the kubelet retries.
   * The runtime's answer passes unchanged, a NOT_FOUND included, where the call layer answers OK;
   * containerd and CRI-O answer OK themselves for an id they do not have.
   */
  private final class Removal extends Watch {
    private final String id;
    private final Consumer<String> forget;

    Removal(Upstream upstream, String rpc, String id, Consumer<String> forget) {
      super(upstream, rpc);
      this.id = id;
      this.forget = forget;
    }

    @Override
    public void ended(int grpcStatus, long nanos) {
      if (grpcStatus == Status.Code.OK.value() || grpcStatus == Status.Code.NOT_FOUND.value()) {
        forget.accept(id);
      }
      super.ended(grpcStatus, nanos);
    }
  }

  @Override
  public void close() {
    upstreams.values().forEach(upstream -> upstream.connection().close());
  }
}

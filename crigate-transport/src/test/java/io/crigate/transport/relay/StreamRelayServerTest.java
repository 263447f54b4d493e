package io.crigate.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.transport.EventLoops;
import io.crigate.transport.UnixSocketChannel;
import io.grpc.CallOptions;
import io.grpc.ClientCall;
import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.MethodDescriptor;
import io.grpc.Server;
import io.grpc.ServerServiceDefinition;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.NettyServerBuilder;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay between a real grpc-java client and a real grpc-java server, both on unix sockets:
 * what a relayed call looks like to each end, and how it ends when either end stops. A relay that
 * loses a call fails its test here rather than hanging the build.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class StreamRelayServerTest {

  static final Metadata.Key<String> DETAIL = Metadata.Key.of("x-detail", Metadata.ASCII_STRING_MARSHALLER);
  static final MethodDescriptor.Marshaller<byte[]> BYTES = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
  static final MethodDescriptor<byte[], byte[]> ECHO = method("Echo");
  static final MethodDescriptor<byte[], byte[]> HANG = method("Hang");
  /** Answers with a message of crigate's message limit plus the request's first byte. */
  static final MethodDescriptor<byte[], byte[]> LARGE = method("Large");

  @TempDir
  Path dir;

  private final EventLoopGroup eventLoops = EventLoops.epoll(1, "relay-test");
  private final CountDownLatch hanging = new CountDownLatch(1);
  private final CountDownLatch hangCancelled = new CountDownLatch(1);
  private final List<String> routed = new CopyOnWriteArrayList<>();
  private final Watch watch = new Watch();
  private Server upstreamServer;
  private Http2Upstream upstream;
  private StreamRelayServer relay;
  private UnixSocketChannel client;

  @BeforeEach
  void start() throws IOException {
    Path upstreamSocket = dir.resolve("upstream.sock");
    upstreamServer = NettyServerBuilder.forAddress(new DomainSocketAddress(upstreamSocket.toString()))
        .channelType(EpollServerDomainSocketChannel.class).bossEventLoopGroup(eventLoops).workerEventLoopGroup(eventLoops)
        .maxInboundMessageSize(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES)
        .addService(ServerServiceDefinition.builder("test.Relay")
            .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, reply) -> {
              String text = new String(request, 0, Math.min(request.length, 64), StandardCharsets.UTF_8);
              if (text.startsWith("fail:")) {
                Metadata trailers = new Metadata();
                trailers.put(DETAIL, "from upstream");
                reply.onError(Status.NOT_FOUND.withDescription(text.substring(5)).asRuntimeException(trailers));
              } else {
                reply.onNext(request);
                reply.onCompleted();
              }
            }))
            .addMethod(LARGE, ServerCalls.asyncUnaryCall((request, reply) -> {
              reply.onNext(new byte[UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES + request[0]]);
              reply.onCompleted();
            }))
            .addMethod(HANG, ServerCalls.asyncUnaryCall((request, reply) -> {
              Context.current().addListener(context -> hangCancelled.countDown(), Runnable::run);
              hanging.countDown();
            }))
            .build())
        .build().start();
    upstream = Http2Upstream.to(upstreamSocket, eventLoops, Duration.ofSeconds(5));
    relay = StreamRelayServer.bind(dir.resolve("relay.sock"), eventLoops, (path, message) -> {
      routed.add(path + " " + (message == null ? "-" : message.readableBytes()));
      return new Route(upstream, watch);
    }, 100, Duration.ofSeconds(1));
    client = UnixSocketChannel.open(dir.resolve("relay.sock"), "relay-test-client");
  }

  @AfterEach
  void stop() {
    client.close();
    relay.close();
    upstream.close();
    upstreamServer.shutdownNow();
    EventLoops.shutdown(eventLoops, 2);
  }

  @Test
  void aCallAndALargeAnswerPassUnchangedAndTheRouterSeesTheFirstMessage() throws Exception {
    byte[] small = "hello".getBytes(StandardCharsets.UTF_8);
    byte[] large = new byte[3 * 1024 * 1024];
    Arrays.fill(large, (byte) 7);
    large[large.length - 1] = 9;

    assertThat(ClientCalls.blockingUnaryCall(client.channel(), ECHO, CallOptions.DEFAULT, small)).isEqualTo(small);
    assertThat(ClientCalls.blockingUnaryCall(client.channel(), ECHO, CallOptions.DEFAULT, large)).isEqualTo(large);

    // a first message larger than the routing limit is passed on without being read
    assertThat(routed).containsExactly("/test.Relay/Echo 5", "/test.Relay/Echo -");
    assertThat(watch.endedOnceCounted(2)).containsExactly(0, 0);
  }

  @Test
  void anErrorStatusAndItsTrailersPassThrough() throws Exception {
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(client.channel(), ECHO, CallOptions.DEFAULT,
        "fail:no such container 'c1' ✓".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
          assertThat(e.getStatus().getDescription()).isEqualTo("no such container 'c1' ✓");
          assertThat(e.getTrailers().get(DETAIL)).isEqualTo("from upstream");
        });
    assertThat(watch.endedOnceCounted(1)).containsExactly(Status.Code.NOT_FOUND.value());
  }

  @Test
  void anAnswerOverTheMessageLimitIsResourceExhaustedNamingTheLimitAndOneAtTheLimitPasses() throws Exception {
    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(client.channel(), LARGE, CallOptions.DEFAULT, new byte[] {1}))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.RESOURCE_EXHAUSTED);
          assertThat(e.getStatus().getDescription()).isEqualTo(
              "the answer of 16777217 bytes exceeds crigate's message limit of 16777216 bytes");
        });
    assertThat(watch.endedOnceCounted(1)).containsExactly(Status.Code.RESOURCE_EXHAUSTED.value());

    assertThat(ClientCalls.blockingUnaryCall(client.channel(), LARGE, CallOptions.DEFAULT, new byte[] {0}))
        .hasSize(UnixSocketChannel.MAX_INBOUND_MESSAGE_BYTES);
    assertThat(watch.endedOnceCounted(2)).containsExactly(Status.Code.RESOURCE_EXHAUSTED.value(), 0);
  }

  @Test
  void aCallerThatCancelsResetsTheUpstreamCall() throws Exception {
    CountDownLatch closed = new CountDownLatch(1);
    ClientCall<byte[], byte[]> call = hang(CallOptions.DEFAULT, new CopyOnWriteArrayList<>(), closed);
    assertThat(hanging.await(20, TimeUnit.SECONDS)).as("the upstream got the call").isTrue();

    call.cancel("the kubelet gave up", null);

    assertThat(hangCancelled.await(20, TimeUnit.SECONDS)).as("the upstream saw the cancellation").isTrue();
    assertThat(closed.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(watch.ended).as("a cancelled call has no status of its own").isEmpty();
  }

  @Test
  void anUpstreamThatPassesTheRelaysTimeoutEndsTheCallUnavailableAndIsCancelled() throws Exception {
    watch.timeoutNanos = Duration.ofSeconds(1).toNanos();

    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(client.channel(), HANG,
        CallOptions.DEFAULT.withDeadlineAfter(60, TimeUnit.SECONDS), new byte[] {1}))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).isEqualTo("upstream too slow");
        });
    assertThat(watch.timeouts).hasValue(1);
    assertThat(hanging.await(20, TimeUnit.SECONDS)).as("the upstream got the call").isTrue();
    assertThat(hangCancelled.await(20, TimeUnit.SECONDS)).as("the upstream call was reset").isTrue();
    assertThat(watch.endedOnceCounted(1)).containsExactly(Status.Code.UNAVAILABLE.value());
  }

  @Test
  void aShorterCallerDeadlineGovernsAndTheRelaysTimeoutNeverFires() throws Exception {
    watch.timeoutNanos = Duration.ofSeconds(60).toNanos();
    List<Status> statuses = new CopyOnWriteArrayList<>();
    CountDownLatch closed = new CountDownLatch(1);

    hang(CallOptions.DEFAULT.withDeadlineAfter(3, TimeUnit.SECONDS), statuses, closed);

    assertThat(hanging.await(20, TimeUnit.SECONDS)).as("the upstream got the call").isTrue();
    assertThat(closed.await(20, TimeUnit.SECONDS)).isTrue();
    assertThat(statuses).extracting(Status::getCode).containsExactly(Status.Code.DEADLINE_EXCEEDED);
    assertThat(hangCancelled.await(20, TimeUnit.SECONDS)).as("the upstream call ended too").isTrue();
    assertThat(watch.timeouts).hasValue(0);
  }

  @Test
  void anUnreachableUpstreamIsUnavailableWithTheWatchsReason() throws Exception {
    upstream.close();
    upstream = Http2Upstream.to(dir.resolve("nobody.sock"), eventLoops, Duration.ofSeconds(5));

    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(client.channel(), ECHO, CallOptions.DEFAULT, new byte[] {1}))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
          assertThat(e.getStatus().getDescription()).startsWith("lost: ").contains("nobody.sock");
        });
    assertThat(watch.endedOnceCounted(1)).containsExactly(Status.Code.UNAVAILABLE.value());
  }

  /** Starts a call of the upstream method that never answers; its status lands in {@code statuses}. */
  private ClientCall<byte[], byte[]> hang(CallOptions options, List<Status> statuses, CountDownLatch closed) {
    ClientCall<byte[], byte[]> call = client.channel().newCall(HANG, options);
    ClientCalls.asyncUnaryCall(call, new byte[] {1}, new StreamObserver<>() {
      @Override
      public void onNext(byte[] value) {}

      @Override
      public void onError(Throwable t) {
        statuses.add(Status.fromThrowable(t));
        closed.countDown();
      }

      @Override
      public void onCompleted() {
        closed.countDown();
      }
    });
    return call;
  }

  private static MethodDescriptor<byte[], byte[]> method(String name) {
    return MethodDescriptor.newBuilder(BYTES, BYTES).setType(MethodDescriptor.MethodType.UNARY)
        .setFullMethodName(MethodDescriptor.generateFullMethodName("test.Relay", name)).build();
  }

  /** Records what the relay reports. */
  static final class Watch implements CallWatch {
    volatile long timeoutNanos;
    final AtomicInteger timeouts = new AtomicInteger();
    final List<Integer> ended = new CopyOnWriteArrayList<>();

    @Override
    public long timeoutNanos() {
      return timeoutNanos;
    }

    @Override
    public String timedOut() {
      timeouts.incrementAndGet();
      return "upstream too slow";
    }

    @Override
    public String lost(String why) {
      return "lost: " + why;
    }

    @Override
    public void ended(int grpcStatus, long nanos) {
      ended.add(grpcStatus);
    }

    /**
     * The statuses reported, once {@code count} have been: the relay reports a call's end on its
     * event loop, which may run after the client has already read the answer.
     */
    List<Integer> endedOnceCounted(int count) throws InterruptedException {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (ended.size() < count && System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      return ended;
    }
  }
}

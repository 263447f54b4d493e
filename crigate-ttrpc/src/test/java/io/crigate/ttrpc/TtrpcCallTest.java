package io.crigate.ttrpc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.StringValue;
import com.google.rpc.Status;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Java client against Java server over a real unix socket. */
class TtrpcCallTest {

  private static final String SVC = "test.v1.Echo";
  private static final int CONCURRENT = 32;

  @TempDir
  Path dir;
  private TtrpcServer server;
  private TtrpcClient client;
  private final CountDownLatch allArrived = new CountDownLatch(CONCURRENT);
  private final AtomicBoolean slowInterrupted = new AtomicBoolean();
  private final CountDownLatch slowEnded = new CountDownLatch(1);
  private final CountDownLatch release = new CountDownLatch(1);

  @BeforeEach
  void start() throws Exception {
    server = TtrpcServer.builder().gracePeriod(Duration.ofSeconds(5)).service(ServiceDefinition.builder(SVC)
        .unary("Echo", (ctx, req) -> req)
        .unary("Meta", (ctx, req) -> String.join(",", ctx.metadata().get(new String(req, UTF_8))).getBytes(UTF_8))
        .unary("Timeout", (ctx, req) -> Long.toString(ctx.timeout().toMillis()).getBytes(UTF_8))
        .unary("Fail", (ctx, req) -> {
          throw new TtrpcException(Status.newBuilder().setCode(Code.NOT_FOUND.number()).setMessage("pod x")
              .addDetails(Any.pack(StringValue.of("detail"))).build());
        })
        .unary("Crash", (ctx, req) -> {
          throw new IllegalStateException("boom");
        })
        .unary("Slow", (ctx, req) -> {
          try {
            Thread.sleep(60_000);
          } catch (InterruptedException e) {
            slowInterrupted.set(true);
          } finally {
            slowEnded.countDown();
          }
          return req;
        })
        .unary("Gather", (ctx, req) -> {
          allArrived.countDown();
          // only returns once every concurrent call is inside a handler at the same time
          return Boolean.toString(allArrived.await(30, TimeUnit.SECONDS)).getBytes(UTF_8);
        })
        .unary("Held", (ctx, req) -> {
          release.await();
          return req;
        })
        .stream("Count", stream -> {
          int n = Integer.parseInt(new String(stream.receive().orElseThrow(), UTF_8));
          for (int i = 1; i <= n; i++) {
            stream.send(Integer.toString(i).getBytes(UTF_8));
          }
        })
        .stream("Sum", stream -> {
          int sum = 0;
          for (Optional<byte[]> m = stream.receive(); m.isPresent(); m = stream.receive()) {
            sum += Integer.parseInt(new String(m.get(), UTF_8));
          }
          stream.send(Integer.toString(sum).getBytes(UTF_8));
        })
        .build()).build().bind(dir.resolve("ttrpc.sock"));
    client = TtrpcClient.connect(dir.resolve("ttrpc.sock"));
  }

  @AfterEach
  void stop() {
    release.countDown();
    client.close(Duration.ofSeconds(1));
    server.close();
  }

  private byte[] call(String method, String body, CallOptions options) {
    return client.call(SVC, method, body.getBytes(UTF_8), options);
  }

  @Test
  void unaryCallReturnsTheHandlersAnswer() {
    assertThat(new String(call("Echo", "hello", CallOptions.DEFAULT), UTF_8)).isEqualTo("hello");
  }

  @Test
  void metadataReachesTheHandlerWithEveryValueInOrder() {
    CallOptions options = CallOptions.DEFAULT.withMetadata(Metadata.of("k", "a", "b"));
    assertThat(new String(call("Meta", "k", options), UTF_8)).isEqualTo("a,b");
  }

  @Test
  void errorStatusArrivesWithCodeMessageAndDetails() {
    assertThatThrownBy(() -> call("Fail", "", CallOptions.DEFAULT))
        .isInstanceOfSatisfying(TtrpcException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.NOT_FOUND);
          assertThat(e.status().getMessage()).isEqualTo("pod x");
          assertThat(e.status().getDetailsList()).containsExactly(Any.pack(StringValue.of("detail")));
        });
  }

  @Test
  void handlerCrashIsUnknownWithItsMessage() {
    assertThatThrownBy(() -> call("Crash", "", CallOptions.DEFAULT))
        .isInstanceOfSatisfying(TtrpcException.class, e -> {
          assertThat(e.code()).isEqualTo(Code.UNKNOWN);
          assertThat(e.status().getMessage()).isEqualTo("boom");
        });
  }

  @Test
  void unknownMethodIsUnimplemented() {
    assertThatThrownBy(() -> call("Nope", "", CallOptions.DEFAULT))
        .isInstanceOfSatisfying(TtrpcException.class, e -> assertThat(e.code()).isEqualTo(Code.UNIMPLEMENTED));
  }

  @Test
  void timeoutIsSentAsTimeoutNano() {
    long seen = Long.parseLong(new String(call("Timeout", "", CallOptions.timeout(Duration.ofSeconds(30))), UTF_8));
    // the handler sees what was sent (30 000 ms); none sent reads as zero
    assertThat(seen).isEqualTo(30_000);
    assertThat(new String(call("Timeout", "", CallOptions.DEFAULT), UTF_8)).isEqualTo("0");
  }

  @Test
  void deadlineEndsTheCallAndInterruptsTheHandler() throws Exception {
    assertThatThrownBy(() -> call("Slow", "", CallOptions.timeout(Duration.ofMillis(200))))
        .isInstanceOfSatisfying(TtrpcException.class, e -> assertThat(e.code()).isEqualTo(Code.DEADLINE_EXCEEDED));
    assertThat(slowEnded.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(slowInterrupted).isTrue();
    // the connection is still good
    assertThat(new String(call("Echo", "after", CallOptions.DEFAULT), UTF_8)).isEqualTo("after");
  }

  @Test
  void callsOnOneConnectionRunConcurrently() {
    List<CompletableFuture<byte[]>> calls = IntStream.range(0, CONCURRENT)
        .mapToObj(i -> client.callAsync(SVC, "Gather", new byte[0], CallOptions.timeout(Duration.ofSeconds(60))))
        .toList();
    assertThat(calls).allSatisfy(f -> assertThat(new String(f.join(), UTF_8)).isEqualTo("true"));
  }

  @Test
  void serverStreamsDataFramesThenEnds() throws Exception {
    ClientStream s = client.stream(SVC, "Count", "3".getBytes(UTF_8), false, CallOptions.DEFAULT);
    List<String> got = new ArrayList<>();
    for (Optional<byte[]> m = s.receive(); m.isPresent(); m = s.receive()) {
      got.add(new String(m.get(), UTF_8));
    }
    assertThat(got).containsExactly("1", "2", "3");
  }

  @Test
  void clientStreamsUntilCloseSend() throws Exception {
    ClientStream s = client.stream(SVC, "Sum", new byte[0], true, CallOptions.DEFAULT);
    for (String n : List.of("4", "5", "6")) {
      s.send(n.getBytes(UTF_8));
    }
    s.closeSend();
    assertThat(new String(s.receive().orElseThrow(), UTF_8)).isEqualTo("15");
    assertThat(s.receive()).isEmpty();
  }

  @Test
  void oversizedRequestFailsLocallyAsResourceExhausted() {
    byte[] big = new byte[(4 << 20) + 1];
    assertThatThrownBy(() -> client.call(SVC, "Echo", big, CallOptions.DEFAULT))
        .isInstanceOfSatisfying(TtrpcException.class, e -> assertThat(e.code()).isEqualTo(Code.RESOURCE_EXHAUSTED));
    assertThat(new String(call("Echo", "still open", CallOptions.DEFAULT), UTF_8)).isEqualTo("still open");
  }

  @Test
  void gracefulServerCloseLetsCallsUnderWayFinishAndRefusesNewOnes() throws Exception {
    CompletableFuture<byte[]> held = client.callAsync(SVC, "Held", "kept".getBytes(UTF_8), CallOptions.DEFAULT);
    org.awaitility.Awaitility.await().until(() -> server.activeCalls() == 1);
    CompletableFuture<Void> closing = CompletableFuture.runAsync(server::close);
    org.awaitility.Awaitility.await().untilAsserted(() -> assertThatThrownBy(() -> call("Echo", "", CallOptions.DEFAULT))
        .isInstanceOfSatisfying(TtrpcException.class, e -> assertThat(e.code()).isEqualTo(Code.UNAVAILABLE)));
    release.countDown();
    assertThat(new String(held.get(10, TimeUnit.SECONDS), UTF_8)).isEqualTo("kept");
    closing.get(10, TimeUnit.SECONDS);
    assertThat(Files.exists(dir.resolve("ttrpc.sock"))).as("socket file removed").isFalse();
  }

  @Test
  void gracefulClientCloseWaitsForItsCallsThenRefusesNewOnes() throws Exception {
    CompletableFuture<byte[]> held = client.callAsync(SVC, "Held", "kept".getBytes(UTF_8), CallOptions.DEFAULT);
    org.awaitility.Awaitility.await().until(() -> server.activeCalls() == 1);
    CompletableFuture<Void> closing = CompletableFuture.runAsync(() -> client.close(Duration.ofSeconds(30)));
    org.awaitility.Awaitility.await().untilAsserted(() -> assertThatThrownBy(() -> call("Echo", "", CallOptions.DEFAULT))
        .isInstanceOfSatisfying(TtrpcException.class, e -> assertThat(e.code()).isEqualTo(Code.UNAVAILABLE)));
    assertThat(closing).isNotDone();
    release.countDown();
    assertThat(new String(held.get(10, TimeUnit.SECONDS), UTF_8)).isEqualTo("kept");
    closing.get(10, TimeUnit.SECONDS);
  }

  @Test
  void codesMapToGrpcNumbers() {
    // gRPC: NOT_FOUND = 5, UNAVAILABLE = 14, UNAUTHENTICATED = 16; unknown numbers are UNKNOWN
    assertThat(Code.NOT_FOUND.number()).isEqualTo(5);
    assertThat(Code.forNumber(14)).isEqualTo(Code.UNAVAILABLE);
    assertThat(Code.forNumber(16)).isEqualTo(Code.UNAUTHENTICATED);
    assertThat(Code.forNumber(99)).isEqualTo(Code.UNKNOWN);
  }
}

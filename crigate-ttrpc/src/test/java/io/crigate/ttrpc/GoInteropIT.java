package io.crigate.ttrpc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * crigate's ttrpc against containerd's Go ttrpc 1.1 (Debian), both directions: unary calls,
 * error statuses, metadata, deadlines and concurrent calls on one connection. (Go ttrpc 1.1 has no
 * streams, so streams are covered Java to Java in TtrpcCallTest.)
 */
class GoInteropIT {

  private static final String SVC = "crigate.test.Echo";
  /** The Go server's Gather barrier and the Go client's fan-out are both this wide. */
  private static final int GO_CONCURRENT = 16;

  @TempDir
  Path dir;

  private static BytesValue bytes(String s) {
    return BytesValue.of(ByteString.copyFromUtf8(s));
  }

  private static String call(TtrpcClient c, String method, String in, CallOptions options) {
    return c.call(SVC, method, bytes(in), BytesValue.parser(), options).getValue().toStringUtf8();
  }

  @Test
  void javaClientAgainstGoServer() throws Exception {
    Path socket = dir.resolve("go.sock");
    Process go = GoPeer.serve(socket);
    try (TtrpcClient client = TtrpcClient.connect(socket)) {
      assertThat(call(client, "Echo", "hello from java", CallOptions.DEFAULT)).isEqualTo("hello from java");

      assertThatThrownBy(() -> call(client, "Fail", "pod-1", CallOptions.DEFAULT))
          .isInstanceOfSatisfying(TtrpcException.class, e -> {
            assertThat(e.code()).isEqualTo(Code.NOT_FOUND);
            assertThat(e.status().getMessage()).isEqualTo("no such thing: pod-1");
          });
      // Go answers an unknown method with its own Unimplemented status
      assertThatThrownBy(() -> call(client, "Nope", "", CallOptions.DEFAULT))
          .isInstanceOfSatisfying(TtrpcException.class, e -> assertThat(e.code()).isEqualTo(Code.UNIMPLEMENTED));

      assertThat(call(client, "Meta", "k", CallOptions.DEFAULT.withMetadata(Metadata.of("k", "a", "b"))))
          .isEqualTo("a,b");

      // the Go handler waits on its context: only our timeout_nano can end it early
      TtrpcClient patient = TtrpcClient.connect(socket);
      CompletableFuture<byte[]> slow = patient.callAsync(SVC, "Slow", bytes("").toByteArray(),
          CallOptions.timeout(Duration.ofMillis(300)));
      assertThatThrownBy(slow::join).hasCauseInstanceOf(TtrpcException.class)
          .cause().satisfies(e -> assertThat(((TtrpcException) e).code()).isEqualTo(Code.DEADLINE_EXCEEDED));
      patient.close();

      List<CompletableFuture<byte[]>> calls = IntStream.range(0, GO_CONCURRENT)
          .mapToObj(i -> client.callAsync(SVC, "Gather", bytes("").toByteArray(), CallOptions.timeout(Duration.ofSeconds(30))))
          .toList();
      assertThat(calls).allSatisfy(f -> assertThat(BytesValue.parseFrom(f.join()).getValue().toStringUtf8()).isEqualTo("true"));
    } finally {
      go.getOutputStream().close();
      go.waitFor(10, TimeUnit.SECONDS);
      go.destroy();
    }
  }

  @Test
  void goClientAgainstJavaServer() throws Exception {
    CountDownLatch gathered = new CountDownLatch(GO_CONCURRENT);
    Path socket = dir.resolve("java.sock");
    try (TtrpcServer server = TtrpcServer.builder().service(ServiceDefinition.builder(SVC)
        .unary("Echo", BytesValue.parser(), (ctx, in) -> in)
        .unary("Fail", BytesValue.parser(), (ctx, in) -> {
          throw new TtrpcException(Code.NOT_FOUND, "no such thing: " + in.getValue().toStringUtf8());
        })
        .unary("Meta", BytesValue.parser(), (ctx, in) -> bytes(String.join(",", ctx.metadata().get(in.getValue().toStringUtf8()))))
        .unary("Slow", BytesValue.parser(), (ctx, in) -> {
          Thread.sleep(60_000); // interrupted at the Go client's deadline
          return in;
        })
        .unary("Gather", BytesValue.parser(), (ctx, in) -> {
          gathered.countDown();
          return bytes(Boolean.toString(gathered.await(30, TimeUnit.SECONDS)));
        })
        .build()).build().bind(socket)) {
      // the Go side asserts each case and prints OK only when all passed
      assertThat(GoPeer.run("client", socket)).contains("OK");
      assertThat(gathered.getCount()).isZero();
    }
  }

  @Test
  void requestNearTheSizeLimitCrossesToGoAndBack() throws Exception {
    Path socket = dir.resolve("go-big.sock");
    Process go = GoPeer.serve(socket);
    try (TtrpcClient client = TtrpcClient.connect(socket)) {
      // a request frame just under 4 MiB in total reaches Go and comes back whole
      String big = "x".repeat((4 << 20) - 1024);
      assertThat(call(client, "Echo", big, CallOptions.DEFAULT)).hasSize(big.length());
    } finally {
      go.getOutputStream().close();
      go.waitFor(10, TimeUnit.SECONDS);
      go.destroy();
    }
  }

}

package io.crigate.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.ServerCalls;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A caller that stops reading does not make the relay buffer what the upstream keeps sending: the
 * caller grants the largest windows HTTP/2 allows, so only the relay's own rule holds the upstream
 * back (a window returns to the upstream once the bytes are on the caller's socket). The upstream
 * streams as fast as its transport lets it and counts what it got out.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RelayBackpressureTest {

  private static final int MESSAGE_BYTES = 64 * 1024;
  /** How much the upstream would send if nothing held it back. */
  private static final long FLOOD_BYTES = 512L * 1024 * 1024;
  static final MethodDescriptor<byte[], byte[]> FLOOD = RelayFixture.method(StreamRelayServerTest.BYTES, "Flood",
      MethodDescriptor.MethodType.SERVER_STREAMING);
  static final MethodDescriptor<byte[], byte[]> ECHO = RelayFixture.method(StreamRelayServerTest.BYTES, "Echo",
      MethodDescriptor.MethodType.UNARY);

  @TempDir
  Path dir;
  private final AtomicLong sent = new AtomicLong();
  private RelayFixture fixture;

  @BeforeEach
  void start() throws Exception {
    byte[] message = new byte[MESSAGE_BYTES];
    fixture = new RelayFixture(dir, ServerServiceDefinition.builder("test.Relay")
        .addMethod(FLOOD, ServerCalls.asyncServerStreamingCall((request, reply) -> {
          ServerCallStreamObserver<byte[]> stream = (ServerCallStreamObserver<byte[]>) reply;
          stream.setOnCancelHandler(() -> {});
          stream.setOnReadyHandler(() -> {
            while (stream.isReady() && !stream.isCancelled() && sent.get() < FLOOD_BYTES) {
              stream.onNext(message);
              sent.addAndGet(MESSAGE_BYTES);
            }
          });
        }))
        .addMethod(ECHO, ServerCalls.asyncUnaryCall((request, reply) -> {
          reply.onNext(request);
          reply.onCompleted();
        })).build(), 1024 * 1024);
  }

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void aCallerThatStopsReadingHoldsTheUpstreamBackAndTheRelayRecoversWhenItLeaves() throws Exception {
    try (RawHttp2Client stalled = new RawHttp2Client(fixture.relaySocket, FrameCodec.MAX_WINDOW_BYTES)) {
      stalled.request(1, "/test.Relay/Flood", new DefaultHttp2Headers(), new byte[] {1});
      awaitSteady();
      // the relay's windows toward the upstream (1 MiB each) plus what the sockets and both
      // transports hold: a few MiB at most, where an unbounded relay takes all 512 MiB
      assertThat(sent.get()).as("bytes the upstream got out while the caller read nothing").isLessThan(16L * 1024 * 1024);
    }

    // the caller's exit gave its unsent bytes back: the shared upstream connection still carries large answers
    ManagedChannel client = fixture.client(1024 * 1024);
    try {
      byte[] large = new byte[3 * 1024 * 1024];
      Arrays.fill(large, (byte) 5);
      assertThat(ClientCalls.blockingUnaryCall(client, ECHO, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS), large))
          .isEqualTo(large);
    } finally {
      client.shutdownNow();
    }
  }

  /** Waits until the upstream has sent nothing more for a second (or 20 s pass). */
  private void awaitSteady() throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    long before = -1;
    while (System.nanoTime() < deadline) {
      Thread.sleep(1000);
      long now = sent.get();
      if (now == before && now > 0) {
        return;
      }
      before = now;
    }
  }
}

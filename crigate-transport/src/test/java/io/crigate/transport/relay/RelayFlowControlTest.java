package io.crigate.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.common.util.concurrent.ListenableFuture;
import io.grpc.CallOptions;
import io.grpc.ManagedChannel;
import io.grpc.MethodDescriptor;
import io.grpc.ServerServiceDefinition;
import io.grpc.stub.ClientCalls;
import io.grpc.stub.ServerCalls;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Answers larger than every HTTP/2 window on the way (ListContainers for many pods) relay whole:
 * the relay sends only what the receiver's windows allow, waits for WINDOW_UPDATE for the rest,
 * and gives each sender its window back as it passes the bytes on, with calls sharing the
 * connections' windows. A relay that loses window accounting hangs here, and times out.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class RelayFlowControlTest {

  /** HTTP/2's default window: what a peer that announces nothing grants. */
  private static final int SMALL_WINDOW = 65_535;
  static final MethodDescriptor<byte[], byte[]> LIST = RelayFixture.method(StreamRelayServerTest.BYTES, "ListContainers",
      MethodDescriptor.MethodType.UNARY);

  @TempDir
  Path dir;
  private RelayFixture fixture;

  @AfterEach
  void stop() {
    fixture.close();
  }

  @Test
  void answersAndRequestsLargerThanTheWindowsPassWholeAndTheWindowsComeBack() throws Exception {
    // the answer is as long as the request says (its first 4 bytes), filled with the request's 5th byte
    fixture = new RelayFixture(dir, ServerServiceDefinition.builder("test.Relay")
        .addMethod(LIST, ServerCalls.asyncUnaryCall((request, reply) -> {
          int length = ((request[0] & 0xff) << 24) | ((request[1] & 0xff) << 16) | ((request[2] & 0xff) << 8) | (request[3] & 0xff);
          byte[] answer = new byte[length];
          Arrays.fill(answer, request[4]);
          reply.onNext(answer);
          reply.onCompleted();
        })).build(), SMALL_WINDOW);
    ManagedChannel client = fixture.client(SMALL_WINDOW);
    try {
      // three rounds of 6 calls at once, 18 x 700 KiB each way: far more than any connection window,
      // so a window not given back stops a later round
      for (int round = 0; round < 3; round++) {
        List<ListenableFuture<byte[]>> answers = new ArrayList<>();
        for (int call = 0; call < 6; call++) {
          byte[] request = new byte[700 * 1024];
          int length = 700 * 1024 + call * 1000 + round;
          request[0] = (byte) (length >>> 24);
          request[1] = (byte) (length >>> 16);
          request[2] = (byte) (length >>> 8);
          request[3] = (byte) length;
          request[4] = (byte) (round * 10 + call);
          answers.add(ClientCalls.futureUnaryCall(client.newCall(LIST, CallOptions.DEFAULT.withDeadlineAfter(30, TimeUnit.SECONDS)), request));
        }
        for (int call = 0; call < 6; call++) {
          byte[] answer = answers.get(call).get();
          assertThat(answer).hasSize(700 * 1024 + call * 1000 + round);
          byte fill = (byte) (round * 10 + call);
          assertThat(answer[0]).isEqualTo(fill);
          assertThat(answer[answer.length - 1]).isEqualTo(fill);
        }
      }
    } finally {
      client.shutdownNow();
    }
  }
}

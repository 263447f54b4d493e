package io.crigate.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.ContainerEventResponse;
import io.crigate.api.cri.v1.GetEventsRequest;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.api.cri.v1.VersionResponse;
import io.crigate.spi.CrigateException;
import io.crigate.transport.UnixSocketChannel;
import io.grpc.BindableService;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.StreamObserver;
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Uses real unix sockets under a temporary directory. */
class SocketFileTest {

  @TempDir
  Path dir;

  private final EventLoopGroup eventLoops = EventLoops.epoll(1, "test-io");

  @AfterEach
  void stopLoops() {
    EventLoops.shutdown(eventLoops, 1);
  }

  @Test
  void servedSocketHasMode0660AndAnswers() throws IOException {
    Path path = dir.resolve("run/crigate.sock");

    try (CriServer server = CriServer.start(SocketFile.prepare(path), List.of(), Duration.ofSeconds(1), eventLoops, Set.of(), 100)) {
      assertThat(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)).isEqualTo(SocketFile.SOCKET_MODE);
      assertThat(connects(path)).isTrue();
      // the private bind directory is gone once the socket is published
      try (var siblings = Files.list(path.getParent())) {
        assertThat(siblings).containsExactly(path);
      }
    }
    assertThat(path).doesNotExist();
  }

  @Test
  void staleSocketIsReplaced() throws IOException {
    Path path = dir.resolve("crigate.sock");
    try (ServerSocketChannel previous = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      previous.bind(UnixDomainSocketAddress.of(path));
    }
    // closing a JDK unix server socket leaves its file behind, as a crashed crigate would
    assertThat(path).exists();
    assertThat(connects(path)).isFalse();

    try (CriServer server = CriServer.start(SocketFile.prepare(path), List.of(), Duration.ofSeconds(1), eventLoops, Set.of(), 100)) {
      assertThat(connects(path)).isTrue();
    }
  }

  @Test
  void liveSocketIsRefusedAndLeftAlone() throws IOException {
    Path path = dir.resolve("crigate.sock");
    try (ServerSocketChannel live = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
      live.bind(UnixDomainSocketAddress.of(path));

      assertThatThrownBy(() -> SocketFile.prepare(path))
          .isInstanceOf(CrigateException.FailedPrecondition.class)
          .hasMessage("another process is serving on %s; stop it or choose another --socket".formatted(path));
      assertThat(connects(path)).isTrue();
    }
  }

  @Test
  void aFileThatIsNotASocketIsRefused() throws IOException {
    Path path = Files.writeString(dir.resolve("crigate.sock"), "important");

    assertThatThrownBy(() -> SocketFile.prepare(path))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("exists and is not a socket");
    assertThat(path).hasContent("important");
  }

  /** Issue 16 item 12: the kubelet's group, not crigate's, may be the one that connects. */
  @Test
  void theSocketGetsTheConfiguredGroupAndAnUnknownGroupStopsTheStart() throws IOException {
    Path path = dir.resolve("grouped.sock");
    try (CriServer server = CriServer.start(SocketFile.prepare(path, Optional.of("daemon")), List.of(),
        Duration.ofSeconds(1), eventLoops, Set.of(), 100)) {
      assertThat(Files.readAttributes(path, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS).group().getName())
          .isEqualTo("daemon");
      assertThat(Files.getPosixFilePermissions(path, LinkOption.NOFOLLOW_LINKS)).isEqualTo(SocketFile.SOCKET_MODE);
    }
    assertThatThrownBy(() -> SocketFile.prepare(dir.resolve("other.sock"), Optional.of("no-such-group-x1")))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("socketGroup 'no-such-group-x1'");
    assertThat(dir.resolve("other.sock")).doesNotExist();
  }

  /** Issue 16 item 12: one connection cannot open calls without bound; the extra ones wait in the client. */
  @Test
  void callsBeyondTheLimitOfAConnectionWaitUntilOneEnds() throws Exception {
    Path path = dir.resolve("limited.sock");
    CountDownLatch held = new CountDownLatch(1);
    BindableService runtime = new RuntimeServiceGrpc.RuntimeServiceImplBase() {
      @Override
      public void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> events) {
        held.countDown();
      }

      @Override
      public void version(VersionRequest request, StreamObserver<VersionResponse> reply) {
        reply.onNext(VersionResponse.newBuilder().setRuntimeName("limited").build());
        reply.onCompleted();
      }
    };
    try (CriServer server = CriServer.start(SocketFile.prepare(path), List.of(runtime.bindService()),
            Duration.ofSeconds(1), eventLoops, Set.of(), 1);
        UnixSocketChannel client = UnixSocketChannel.open(path, "limited-client")) {
      Context.CancellableContext stream = Context.current().withCancellation();
      stream.run(() -> RuntimeServiceGrpc.newStub(client.channel()).getContainerEvents(
          GetEventsRequest.getDefaultInstance(), new StreamObserver<>() {
            @Override
            public void onNext(ContainerEventResponse value) {}

            @Override
            public void onError(Throwable t) {}

            @Override
            public void onCompleted() {}
          }));
      assertThat(held.await(10, TimeUnit.SECONDS)).isTrue();

      RuntimeServiceGrpc.RuntimeServiceBlockingStub blocking = RuntimeServiceGrpc.newBlockingStub(client.channel());
      assertThatThrownBy(() -> blocking.withDeadlineAfter(500, TimeUnit.MILLISECONDS)
          .version(VersionRequest.getDefaultInstance()))
          .satisfies(e -> assertThat(Status.fromThrowable(e).getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
      stream.cancel(null);
      // the slot frees once the server has seen the reset; on a loaded machine that can take a while
      await().atMost(Duration.ofSeconds(60)).ignoreExceptions().until(() -> blocking.withDeadlineAfter(5, TimeUnit.SECONDS)
          .version(VersionRequest.getDefaultInstance()).getRuntimeName().equals("limited"));
    }
  }

  private static boolean connects(Path path) throws IOException {
    try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      client.connect(UnixDomainSocketAddress.of(path));
      return true;
    } catch (java.net.ConnectException refused) {
      return false;
    }
  }
}

package io.crigate.core.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
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
import java.time.Duration;
import java.util.List;
import java.util.Set;
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

    try (CriServer server = CriServer.start(SocketFile.prepare(path), List.of(), Duration.ofSeconds(1), eventLoops, Set.of())) {
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

    try (CriServer server = CriServer.start(SocketFile.prepare(path), List.of(), Duration.ofSeconds(1), eventLoops, Set.of())) {
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

  private static boolean connects(Path path) throws IOException {
    try (SocketChannel client = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      client.connect(UnixDomainSocketAddress.of(path));
      return true;
    } catch (java.net.ConnectException refused) {
      return false;
    }
  }
}

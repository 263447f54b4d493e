package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.awaitility.Awaitility.await;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.DomainDatagramSocketAddress;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** systemd's side of sd_notify played by a unix datagram socket bound where NOTIFY_SOCKET points. */
class SystemdNotifyTest {

  @Test
  void eachSendIsOneDatagramOfStateLinesOnTheNotifySocket(@TempDir Path dir) throws Exception {
    Epoll.ensureAvailability();
    Path path = dir.resolve("notify");
    List<String> received = new ArrayList<>();
    try (var systemd = new Closing(Socket.newSocketDomainDgram());
         SystemdNotify notify = SystemdNotify.to(path.toString())) {
      systemd.socket().bind(new DomainSocketAddress(path.toString()));

      notify.send("READY=1\nSTATUS=serving");
      notify.send("STOPPING=1");

      ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
      await().atMost(Duration.ofSeconds(10)).until(() -> {
        buffer.clear();
        DomainDatagramSocketAddress from = systemd.socket().recvFromDomainSocket(buffer, 0, buffer.capacity());
        if (from != null) {
          byte[] bytes = new byte[from.receivedAmount()];
          buffer.get(0, bytes);
          received.add(new String(bytes, StandardCharsets.UTF_8));
        }
        return received.size() == 2;
      });
    }
    assertThat(received).containsExactly("READY=1\nSTATUS=serving", "STOPPING=1");
  }

  @Test
  void aNotifySocketThatIsGoneIsLoggedNotThrown(@TempDir Path dir) {
    try (SystemdNotify notify = SystemdNotify.to(dir.resolve("absent").toString())) {
      assertThatCode(() -> notify.send("READY=1")).doesNotThrowAnyException();
    }
  }

  private record Closing(Socket socket) implements AutoCloseable {
    @Override
    public void close() throws Exception {
      socket.close();
    }
  }
}

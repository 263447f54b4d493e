package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.VersionRequest;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.DomainDatagramSocketAddress;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.channel.unix.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/crigate serve} under a Type=notify unit, with this test as systemd: a unix datagram
 * socket named in NOTIFY_SOCKET. READY=1 must come only when the CRI socket answers, and STOPPING=1
 * when SIGTERM stops it.
 */
class SystemdReadinessIT {

  static final Infra infra = Infra.fromEnvironment();

  @Test
  void readyIsSentOnceTheCriSocketAnswersAndStoppingOnSigterm(@TempDir Path dir) throws Exception {
    Epoll.ensureAvailability();
    Path notifySocket = dir.resolve("notify");
    Path criSocket = dir.resolve("crigate.sock");
    List<String> states = new CopyOnWriteArrayList<>();
    Socket systemd = Socket.newSocketDomainDgram();
    try {
      systemd.bind(new DomainSocketAddress(notifySocket.toString()));
      ProcessBuilder serve = new ProcessBuilder(Infra.repositoryRoot().resolve("bin/crigate").toString(), "serve",
          "--socket", criSocket.toString(), "--state-dir", dir.resolve("state").toString(),
          "--remote-runtime-endpoints", "default:" + infra.containerdA())
          .redirectErrorStream(true).redirectOutput(dir.resolve("crigate.log").toFile());
      serve.environment().put("NOTIFY_SOCKET", notifySocket.toString());
      Process crigate = serve.start();
      try (CriConnection cri = CriConnection.open("unix://" + criSocket)) {
        await("READY=1").atMost(Duration.ofSeconds(120)).until(() -> received(systemd, states).stream()
            .anyMatch(state -> state.lines().anyMatch("READY=1"::equals)));
        // Readiness is a promise: the first call after it must be served, without a retry.
        assertThat(cri.runtime(Duration.ofSeconds(5)).version(VersionRequest.getDefaultInstance()).getRuntimeName())
            .isNotEmpty();
        assertThat(states.get(0)).contains("STATUS=serving CRI on " + criSocket);
      } finally {
        crigate.destroy();
        assertThat(crigate.waitFor(30, TimeUnit.SECONDS)).isTrue();
      }
      await("STOPPING=1").atMost(Duration.ofSeconds(10))
          .until(() -> received(systemd, states).contains("STOPPING=1"));
    } finally {
      systemd.close();
    }
  }

  /** Drains the datagrams waiting on {@code systemd} into {@code states}. */
  private static List<String> received(Socket systemd, List<String> states) throws Exception {
    ByteBuffer buffer = ByteBuffer.allocateDirect(4096);
    for (DomainDatagramSocketAddress from; (from = systemd.recvFromDomainSocket(buffer, 0, buffer.capacity())) != null; ) {
      byte[] bytes = new byte[from.receivedAmount()];
      buffer.get(0, bytes);
      states.add(new String(bytes, StandardCharsets.UTF_8));
      buffer.clear();
    }
    return states;
  }
}

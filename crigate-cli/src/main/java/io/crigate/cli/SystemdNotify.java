package io.crigate.cli;

import io.netty.channel.epoll.Epoll;
import io.netty.channel.unix.Socket;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The sd_notify protocol: state lines such as {@code READY=1} sent as one datagram to the unix socket
 * systemd names in {@code NOTIFY_SOCKET}, so a {@code Type=notify} unit is "started" when crigate
 * serves. The JDK opens no unix datagram sockets, so this uses the datagram support of Netty's
 * native transport, which crigate already loads for its servers.
 */
final class SystemdNotify implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(SystemdNotify.class);

  private final byte[] address;
  private final Socket socket;

  private SystemdNotify(byte[] address, Socket socket) {
    this.address = address;
    this.socket = socket;
  }

  /** The notifier for {@code NOTIFY_SOCKET}, or empty when systemd did not ask for notifications. */
  static Optional<SystemdNotify> fromEnvironment() {
    String target = System.getenv("NOTIFY_SOCKET");
    return target == null || target.isEmpty() ? Optional.empty() : Optional.of(to(target));
  }

  /** A leading {@code @} names a socket in the abstract namespace, as systemd writes it. */
  static SystemdNotify to(String target) {
    Epoll.ensureAvailability();
    String path = target.startsWith("@") ? "\0" + target.substring(1) : target;
    return new SystemdNotify(path.getBytes(StandardCharsets.UTF_8), Socket.newSocketDomainDgram());
  }

  /**
   * Sends newline-separated state assignments. A failure is logged, never thrown: systemd's
   * bookkeeping must not stop the CRI server (the unit's start timeout reports a lost READY=1).
   */
  void send(String states) {
    byte[] bytes = states.getBytes(StandardCharsets.UTF_8);
    ByteBuffer datagram = ByteBuffer.allocateDirect(bytes.length).put(bytes).flip();
    try {
      socket.sendToDomainSocket(datagram, 0, datagram.limit(), address);
    } catch (IOException e) {
      log.warn("sd_notify {} to NOTIFY_SOCKET failed: {}", states.replace('\n', ' '), e.toString());
    }
  }

  @Override
  public void close() {
    try {
      socket.close();
    } catch (IOException e) {
      log.debug("closing the sd_notify socket", e);
    }
  }
}

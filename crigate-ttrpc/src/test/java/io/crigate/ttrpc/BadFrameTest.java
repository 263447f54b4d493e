package io.crigate.ttrpc;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.crigate.ttrpc.transport.ChannelTransport;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/** A broken peer loses its own connection, with the reason logged; everyone else keeps theirs. */
class BadFrameTest {

  @TempDir
  Path dir;
  private TtrpcServer server;
  private TtrpcClient healthy;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();

  record Case(String name, byte[] bytes, String reason) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        // length 4 MiB + 1 > the limit
        new Case("oversize", header((4 << 20) + 1, 1, 1, 0), "exceeds the 4194304-byte limit"),
        new Case("unknown type", header(0, 1, 9, 0), "unknown message type 9"),
        // 100 payload bytes announced, 3 sent, then the peer hangs up
        new Case("truncated", concat(header(100, 1, 1, 0), new byte[3]), "inside a frame (3 of 100 payload bytes)"),
        new Case("truncated header", new byte[4], "inside a frame header (4 of 10 bytes)"));
  }

  @BeforeEach
  void start() throws IOException {
    Logger logger = (Logger) LoggerFactory.getLogger(ChannelTransport.class);
    log.start();
    logger.addAppender(log);
    server = TtrpcServer.builder().service(ServiceDefinition.builder("s").unary("Echo", (c, r) -> r).build()).build()
        .bind(dir.resolve("s.sock"));
    healthy = TtrpcClient.connect(dir.resolve("s.sock"));
  }

  @AfterEach
  void stop() {
    ((Logger) LoggerFactory.getLogger(ChannelTransport.class)).detachAppender(log);
    healthy.close(Duration.ofSeconds(1));
    server.close();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void badBytesCloseOnlyThatConnectionWithTheReasonLogged(Case c) throws Exception {
    try (SocketChannel raw = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      raw.connect(UnixDomainSocketAddress.of(dir.resolve("s.sock")));
      raw.write(ByteBuffer.wrap(c.bytes()));
      if (c.name().startsWith("truncated")) {
        raw.shutdownOutput();
      }
      // the server closes its end: a read sees end of stream
      assertThat(raw.read(ByteBuffer.allocate(16))).isEqualTo(-1);
    }
    org.awaitility.Awaitility.await().untilAsserted(() -> assertThat(log.list)
        .anySatisfy(e -> assertThat(e.getFormattedMessage()).contains(c.reason())));
    assertThat(new String(healthy.call("s", "Echo", "ok".getBytes(UTF_8), CallOptions.DEFAULT), UTF_8)).isEqualTo("ok");
  }

  private static byte[] header(int length, int stream, int type, int flags) {
    return ByteBuffer.allocate(10).putInt(length).putInt(stream).put((byte) type).put((byte) flags).array();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    return ByteBuffer.allocate(a.length + b.length).put(a).put(b).array();
  }
}

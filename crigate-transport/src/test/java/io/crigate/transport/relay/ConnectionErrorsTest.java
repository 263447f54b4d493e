package io.crigate.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.netty.channel.embedded.EmbeddedChannel;
import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ConnectionErrorsTest {

  /**
   * An error no handler took must not reach the pipeline's tail (EmbeddedChannel rethrows what
   * reached it, as a real channel would log it with a stack trace), and the connection closes.
   */
  @ParameterizedTest
  @ValueSource(booleans = {true, false})
  void anErrorNoStreamTookClosesTheConnectionInsteadOfReachingTheTail(boolean peerReset) {
    EmbeddedChannel connection = new EmbeddedChannel(new ConnectionErrors("client"));

    connection.pipeline().fireExceptionCaught(peerReset ? new IOException("Connection reset by peer")
        : new IllegalStateException("bad frame"));

    assertThatCode(connection::checkException).doesNotThrowAnyException();
    assertThat(connection.isOpen()).isFalse();
  }
}

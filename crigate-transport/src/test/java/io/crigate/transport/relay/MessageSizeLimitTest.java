package io.crigate.transport.relay;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class MessageSizeLimitTest {

  @Test
  void aMessageOverTheLimitIsFoundWhereverItsPrefixIsSplit() {
    // three messages: 10 bytes, empty, 11 bytes (one over a limit of 10)
    ByteBuf stream = Unpooled.buffer();
    message(stream, 10);
    message(stream, 0);
    message(stream, 11);
    for (int frameBytes = 1; frameBytes <= stream.readableBytes(); frameBytes++) {
      MessageSizeLimit limit = new MessageSizeLimit(10);
      List<Long> found = new ArrayList<>();
      for (int at = 0; at < stream.readableBytes(); at += frameBytes) {
        long oversized = limit.oversized(stream.slice(at, Math.min(frameBytes, stream.readableBytes() - at)));
        if (oversized >= 0) {
          found.add(oversized);
          break;
        }
      }
      assertThat(found).as("frames of %d bytes", frameBytes).containsExactly(11L);
    }
  }

  @Test
  void messagesAtTheLimitPass() {
    ByteBuf stream = Unpooled.buffer();
    message(stream, 10);
    message(stream, 10);

    assertThat(new MessageSizeLimit(10).oversized(stream)).isEqualTo(-1);
    assertThat(stream.readerIndex()).as("only read, not consumed").isZero();
  }

  private static void message(ByteBuf stream, int length) {
    stream.writeByte(0).writeInt(length).writeZero(length);
  }
}

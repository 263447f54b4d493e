package io.crigate.cli.ctl;

import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Stream bytes onto ctl's {@link PrintWriter}, decoded as UTF-8 across message boundaries, so a
 * character split between two frames still prints as one.
 */
final class WriterOutput extends OutputStream {

  private final PrintWriter writer;
  private final CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
      .onMalformedInput(CodingErrorAction.REPLACE).onUnmappableCharacter(CodingErrorAction.REPLACE);
  private final ByteBuffer pending = ByteBuffer.allocate(8);
  private final CharBuffer chars = CharBuffer.allocate(8192);

  WriterOutput(PrintWriter writer) {
    this.writer = writer;
  }

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] data, int offset, int length) {
    ByteBuffer input = ByteBuffer.allocate(pending.position() + length);
    input.put(pending.flip()).put(data, offset, length).flip();
    pending.clear();
    while (true) {
      boolean overflow = decoder.decode(input, chars, false).isOverflow();
      writer.append(chars.flip());
      chars.clear();
      if (!overflow) {
        break;
      }
    }
    pending.put(input); // at most 3 bytes of an unfinished character
  }

  @Override
  public void flush() {
    writer.flush();
  }
}

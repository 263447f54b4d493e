package io.crigate.streaming;

import java.io.OutputStream;
import java.util.concurrent.atomic.AtomicBoolean;

/** One outgoing channel of a session as an {@link OutputStream}; closing it tells the client once. */
final class ChannelOutput extends OutputStream {

  private final ChannelSink out;
  private final int channel;
  private final AtomicBoolean closed = new AtomicBoolean();

  ChannelOutput(ChannelSink out, int channel) {
    this.out = out;
    this.channel = channel;
  }

  @Override
  public void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public void write(byte[] data, int offset, int length) {
    if (length > 0 && !closed.get()) {
      out.write(channel, data, offset, length);
    }
  }

  @Override
  public void close() {
    if (closed.compareAndSet(false, true)) {
      out.close(channel);
    }
  }
}

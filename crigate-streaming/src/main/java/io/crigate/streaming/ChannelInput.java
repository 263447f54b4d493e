package io.crigate.streaming;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import java.io.IOException;
import java.io.InputStream;
import java.io.InterruptedIOException;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * What the client sends on one channel (stdin, resize), as a blocking stream. The event loop offers
 * bytes; a session thread reads them. Past {@link #HIGH_WATER} unread bytes the connection stops
 * reading from the socket until the reader catches up, so a command that ignores its stdin cannot
 * make crigate buffer without bound.
 */
final class ChannelInput extends InputStream {

  static final long HIGH_WATER = 1 << 20;
  static final long LOW_WATER = 256 << 10;
  private static final byte[] END = new byte[0];

  private final BlockingQueue<byte[]> chunks = new LinkedBlockingQueue<>();
  private final AtomicLong queued = new AtomicLong();
  private final AtomicBoolean ended = new AtomicBoolean();
  private final Consumer<Boolean> reading;
  private byte[] current;
  private int position;
  private boolean done;

  /** @param reading switches reading from the socket on (true) or off (false) */
  ChannelInput(Consumer<Boolean> reading) {
    this.reading = reading;
  }

  /** Called on the event loop; copies, so the caller keeps ownership of {@code data}. */
  void offer(ByteBuf data) {
    if (ended.get() || !data.isReadable()) {
      return;
    }
    byte[] copy = ByteBufUtil.getBytes(data);
    chunks.add(copy);
    if (queued.addAndGet(copy.length) > HIGH_WATER) {
      reading.accept(false);
    }
  }

  /** No more bytes will come: the client closed the channel or went away. */
  void end() {
    if (ended.compareAndSet(false, true)) {
      chunks.add(END);
    }
  }

  @Override
  public int read() throws IOException {
    byte[] one = new byte[1];
    return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
  }

  @Override
  public int read(byte[] buffer, int offset, int length) throws IOException {
    if (length == 0) {
      return 0;
    }
    if (!fill()) {
      return -1;
    }
    int n = Math.min(length, current.length - position);
    System.arraycopy(current, position, buffer, offset, n);
    position += n;
    return n;
  }

  private boolean fill() throws InterruptedIOException {
    if (done) {
      return false;
    }
    if (current != null && position < current.length) {
      return true;
    }
    try {
      current = chunks.take();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new InterruptedIOException("session ended");
    }
    position = 0;
    if (current == END) {
      done = true;
      return false;
    }
    long left = queued.addAndGet(-current.length);
    if (left < LOW_WATER && left + current.length >= LOW_WATER) {
      reading.accept(true);
    }
    return true;
  }

  @Override
  public int available() {
    return current == null || done ? 0 : current.length - position;
  }
}

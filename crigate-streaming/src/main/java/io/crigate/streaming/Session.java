package io.crigate.streaming;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import io.crigate.spi.StreamIo;
import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exec or attach session once the client is connected: runs the request on a virtual thread
 * with the client's channels as its {@link StreamIo}, then reports the exit code and ends the
 * connection. Protocol handlers feed {@link #stdinInput()} and {@link #resizeInput()}.
 */
final class Session implements StreamIo {

  private static final Logger LOG = LoggerFactory.getLogger(Session.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private final StreamRequest request;
  private final String protocol;
  private final Outbound out;
  private final ChannelInput stdin;
  private final ChannelInput resize;
  private final OutputStream stdout;
  private final OutputStream stderr;
  private final AtomicReference<TerminalSize> lastSize = new AtomicReference<>();
  private final List<Consumer<TerminalSize>> resizeListeners = new CopyOnWriteArrayList<>();
  private volatile Thread runner;

  Session(StreamRequest request, String protocol, Outbound out, Consumer<Boolean> reading) {
    this.request = request;
    this.protocol = protocol;
    this.out = out;
    this.stdin = new ChannelInput(reading);
    this.resize = new ChannelInput(reading);
    if (!request.stdin()) {
      stdin.end();
    }
    this.stdout = request.stdout() ? new ChannelOutput(out, Outbound.STDOUT) : OutputStream.nullOutputStream();
    // A terminal has one output; clients open no stderr channel with a tty.
    this.stderr = request.tty() ? stdout
        : request.stderr() ? new ChannelOutput(out, Outbound.STDERR) : OutputStream.nullOutputStream();
  }

  ChannelInput stdinInput() {
    return stdin;
  }

  ChannelInput resizeInput() {
    return resize;
  }

  void start() {
    runner = Thread.ofVirtual().name("stream-" + request.kind()).start(this::run);
    if (request.tty()) {
      Thread.ofVirtual().name("stream-resize").start(this::readResizes);
    }
  }

  /** The client went away: its input ends, and the runtime is interrupted so it stops the command. */
  void clientGone() {
    stdin.end();
    resize.end();
    Thread thread = runner;
    if (thread != null) {
      thread.interrupt();
    }
  }

  private void run() {
    long start = System.nanoTime();
    request.metrics().opened(request.kind());
    ExitStatus status;
    try {
      status = ExitStatus.exited(request.run(this));
    } catch (CrigateException e) {
      status = ExitStatus.failed(e.getMessage());
    } catch (RuntimeException e) {
      LOG.warn("{} failed", request.what(), e);
      status = ExitStatus.failed("internal error: " + e);
    }
    closeQuietly(stdout);
    closeQuietly(stderr);
    resize.end();
    // counted before the client is told, so whoever it tells sees the count already
    request.metrics().ended(request.kind(), status);
    out.finish(status);
    LOG.info("{} over {} ended after {} ms: {}", request.what(), protocol,
        (System.nanoTime() - start) / 1_000_000, status);
  }

  /** Resize messages are JSON objects {@code {"Width":w,"Height":h}}, one after another on the channel. */
  private void readResizes() {
    try (MappingIterator<JsonNode> sizes = JSON.readerFor(JsonNode.class).readValues(resize)) {
      while (sizes.hasNextValue()) {
        JsonNode size = sizes.nextValue();
        TerminalSize next = new TerminalSize(size.path("Width").asInt(), size.path("Height").asInt());
        lastSize.set(next);
        resizeListeners.forEach(listener -> listener.accept(next));
      }
    } catch (IOException | RuntimeException e) {
      LOG.debug("{}: resize channel ended: {}", request.what(), e.toString());
    }
  }

  static void closeQuietly(OutputStream stream) {
    try {
      stream.close();
    } catch (IOException | RuntimeException e) {
      // the client is gone; finish() below fails the same way and ends the connection
    }
  }

  @Override
  public InputStream stdin() {
    return stdin;
  }

  @Override
  public OutputStream stdout() {
    return stdout;
  }

  @Override
  public OutputStream stderr() {
    return stderr;
  }

  @Override
  public boolean tty() {
    return request.tty();
  }

  @Override
  public void onResize(Consumer<TerminalSize> listener) {
    resizeListeners.add(listener);
    TerminalSize last = lastSize.get();
    if (last != null) {
      listener.accept(last);
    }
  }
}

package io.crigate.streaming;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.StreamIo;
import io.crigate.spi.StreamingRuntime;
import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A runtime whose "commands" are words: {@code upper N} copies stdin upper-cased to stdout, writes
 * {@code err} to stderr and exits N; {@code size} prints the first terminal size it is told; {@code
 * fail} cannot start. Attach prints {@code attached} and ends.
 */
final class UppercaseRuntime implements StreamingRuntime {

  /** Counted down when an {@code echo} session's command returns, however its stdin ended. */
  final java.util.concurrent.CountDownLatch echoEnded = new java.util.concurrent.CountDownLatch(1);

  @Override
  public int exec(ExecRequest request, StreamIo io) {
    try {
      switch (request.getCmd(0)) {
        case "upper" -> {
          String input = new String(io.stdin().readAllBytes(), StandardCharsets.UTF_8);
          io.stdout().write(input.toUpperCase(Locale.ROOT).getBytes(StandardCharsets.UTF_8));
          io.stderr().write("err".getBytes(StandardCharsets.UTF_8));
          return Integer.parseInt(request.getCmd(1));
        }
        case "echo" -> {
          try {
            io.stdin().transferTo(io.stdout());
          } finally {
            echoEnded.countDown();
          }
          return 0;
        }
        case "size" -> {
          BlockingQueue<TerminalSize> sizes = new LinkedBlockingQueue<>();
          io.onResize(sizes::add);
          TerminalSize size = sizes.take();
          io.stdout().write("%dx%d".formatted(size.width(), size.height()).getBytes(StandardCharsets.UTF_8));
          return 0;
        }
        default -> throw new CrigateException.FailedPrecondition("container %s is not running".formatted(request.getContainerId()));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("interrupted", e);
    }
  }

  @Override
  public void attach(AttachRequest request, StreamIo io) {
    try {
      io.stdout().write("attached".getBytes(StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package io.crigate.cli.ctl;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.util.Optional;
import sun.misc.Signal;

/** Connects ctl's terminal to an Exec or Attach URL until the session ends; its exit code. */
final class StreamSession {

  private StreamSession() {}

  static int run(String url, InputStream stdin, boolean sendStdin, boolean tty, PrintWriter out, PrintWriter err)
      throws IOException {
    Optional<RawTerminal> terminal = tty ? RawTerminal.enter() : Optional.empty();
    try {
      StreamClient client = StreamClient.connect(url, new WriterOutput(out), new WriterOutput(err));
      terminal.ifPresent(raw -> {
        int[] size = raw.size();
        client.resize(size[0], size[1]);
        Signal.handle(new Signal("WINCH"), signal -> {
          int[] resized = raw.size();
          client.resize(resized[0], resized[1]);
        });
      });
      if (sendStdin) {
        client.sendStdin(stdin);
      }
      return client.await();
    } finally {
      terminal.ifPresent(RawTerminal::close);
    }
  }
}

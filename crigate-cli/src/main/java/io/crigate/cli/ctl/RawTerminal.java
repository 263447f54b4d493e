package io.crigate.cli.ctl;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;

/**
 * The user's terminal in raw mode for {@code exec -t}/{@code attach -t}, so keys such as Ctrl-C
 * reach the remote terminal instead of ending ctl. Java cannot set terminal modes itself; stty on
 * /dev/tty does, and restores the saved mode on close.
 */
final class RawTerminal implements AutoCloseable {

  private final String saved;

  private RawTerminal(String saved) {
    this.saved = saved;
  }

  /** Raw mode when standard input is a terminal; empty otherwise (a pipe has no modes). */
  static Optional<RawTerminal> enter() {
    if (System.console() == null) {
      return Optional.empty();
    }
    try {
      String saved = stty("-g").strip();
      stty("raw", "-echo");
      return Optional.of(new RawTerminal(saved));
    } catch (IOException e) {
      return Optional.empty();
    }
  }

  /** Columns and rows, as {@code stty size} prints them (rows first). */
  int[] size() {
    try {
      String[] rowsCols = stty("size").strip().split("\\s+");
      return new int[] {Integer.parseInt(rowsCols[1]), Integer.parseInt(rowsCols[0])};
    } catch (IOException | RuntimeException e) {
      return new int[] {80, 24};
    }
  }

  private static String stty(String... args) throws IOException {
    ProcessBuilder stty = new ProcessBuilder(java.util.stream.Stream.concat(java.util.stream.Stream.of("stty"),
        java.util.Arrays.stream(args)).toList()).redirectInput(new java.io.File("/dev/tty"));
    Process process = stty.start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    try {
      if (process.waitFor() != 0) {
        throw new IOException("stty " + String.join(" ", args) + " failed");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
    return out;
  }

  @Override
  public void close() {
    try {
      stty(saved);
    } catch (IOException e) {
      System.err.println("crigate ctl: could not restore the terminal; run 'stty sane'");
    }
  }
}

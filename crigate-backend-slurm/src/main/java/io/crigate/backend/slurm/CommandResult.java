package io.crigate.backend.slurm;

import java.nio.charset.StandardCharsets;

/** What one Slurm client command printed and how it exited. */
record CommandResult(int exitCode, byte[] stdout, byte[] stderr) {

  boolean ok() {
    return exitCode == 0;
  }

  String out() {
    return new String(stdout, StandardCharsets.UTF_8);
  }

  String err() {
    return new String(stderr, StandardCharsets.UTF_8).strip();
  }
}

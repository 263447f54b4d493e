package io.crigate.backend.slurm;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Collects one stream of a command's output up to {@link #LIMIT} and counts, without keeping, what
 * follows: an ExecSync of {@code yes} or {@code head -c 50000000 /dev/zero} must not fill the
 * daemon's heap (the bug class of CVE-2022-31030). The stream is still drained to its end, so the
 * command is never blocked on a full pipe. 16 MiB per stream is what containerd allows.
 */
final class CappedOutput extends OutputStream {

  static final int LIMIT = 16 << 20;

  private final String name;
  private final ByteArrayOutputStream kept = new ByteArrayOutputStream();
  private long dropped;

  CappedOutput(String name) {
    this.name = name;
  }

  @Override
  public synchronized void write(int b) {
    write(new byte[] {(byte) b}, 0, 1);
  }

  @Override
  public synchronized void write(byte[] bytes, int offset, int length) {
    int room = LIMIT - kept.size();
    int keep = Math.min(room, length);
    kept.write(bytes, offset, keep);
    dropped += length - keep;
  }

  synchronized byte[] bytes() {
    return kept.toByteArray();
  }

  /** A line saying what was cut, or empty when nothing was. */
  synchronized byte[] notice() {
    if (dropped == 0) {
      return new byte[0];
    }
    return "\ncrigate: %s truncated at %d MiB, %d more bytes dropped\n".formatted(name, LIMIT >> 20, dropped)
        .getBytes(StandardCharsets.UTF_8);
  }

  /** The result of a command whose output went to {@code out} and {@code err}; notices of any cut are added to stderr. */
  static CommandResult result(int exitCode, CappedOutput out, CappedOutput err) {
    ByteArrayOutputStream stderr = new ByteArrayOutputStream();
    stderr.writeBytes(err.bytes());
    stderr.writeBytes(out.notice());
    stderr.writeBytes(err.notice());
    return new CommandResult(exitCode, out.bytes(), stderr.toByteArray());
  }
}

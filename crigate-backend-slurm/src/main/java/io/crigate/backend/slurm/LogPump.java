package io.crigate.backend.slurm;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a job's stdout and stderr files on the shared work dir and appends what they gain to the
 * container's CRI log. Offsets (of bytes already written as whole records) are checkpointed, so a
 * restarted crigate continues where it stopped instead of repeating the log.
 */
final class LogPump implements AutoCloseable {

  /** Bytes of each job file already turned into log records, and whether the log is complete. */
  record Offsets(long stdout, long stderr, boolean done) {
    static final Offsets START = new Offsets(0, 0, false);
  }

  private static final Logger LOG = LoggerFactory.getLogger(LogPump.class);
  private static final Duration TAIL_INTERVAL = Duration.ofMillis(200);
  /** How long close() waits for a pump in the middle of a write or checkpoint to finish it. */
  private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

  private final String containerId;
  private final CriLogWriter writer;
  private final BooleanSupplier jobEnded;
  private final Consumer<Offsets> checkpoint;
  private final List<Source> sources;
  private volatile boolean closed;
  /** Counted down by close(), so a pump waiting for more output stops at once instead of after its interval. */
  private final CountDownLatch closing = new CountDownLatch(1);
  private volatile Thread thread;

  private static final class Source {
    final String stream;
    final JobOutputFile file;
    long offset;
    final ByteArrayOutputStream pending = new ByteArrayOutputStream();

    Source(String stream, JobOutputFile file, long offset) {
      this.stream = stream;
      this.file = file;
      this.offset = offset;
    }

    long committed() {
      return offset - pending.size();
    }
  }

  LogPump(String containerId, Path stdout, Path stderr, CriLogWriter writer, Offsets from,
      BooleanSupplier jobEnded, Consumer<Offsets> checkpoint) {
    this.containerId = containerId;
    this.writer = writer;
    this.jobEnded = jobEnded;
    this.checkpoint = checkpoint;
    this.sources = List.of(new Source("stdout", new JobOutputFile(containerId, stdout), from.stdout()),
        new Source("stderr", new JobOutputFile(containerId, stderr), from.stderr()));
  }

  void start() {
    thread = Thread.ofVirtual().name("slurm-log-" + containerId.substring(0, 12)).start(this::run);
  }

  void reopen() throws IOException {
    writer.reopen();
  }

  private void run() {
    try {
      while (!closed) {
        // Read the end flag first: whatever the job wrote before ending is then on disk for drain().
        boolean ended = jobEnded.getAsBoolean();
        boolean progressed = drain();
        if (ended && !progressed) {
          for (Source source : sources) {
            if (source.pending.size() > 0) {
              writer.write(source.stream, source.pending.toByteArray(), true);
              source.pending.reset();
            }
          }
          checkpoint.accept(new Offsets(sources.get(0).offset, sources.get(1).offset, true));
          return;
        }
        if (progressed) {
          checkpoint.accept(new Offsets(sources.get(0).committed(), sources.get(1).committed(), false));
        }
        closing.await(TAIL_INTERVAL.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (IOException e) {
      LOG.warn("log of container {} stopped: {}", containerId, e.getMessage());
    } finally {
      try {
        writer.close();
      } catch (IOException e) {
        LOG.debug("closing log of container {}", containerId, e);
      }
    }
  }

  private boolean drain() throws IOException {
    boolean progressed = false;
    for (Source source : sources) {
      byte[] chunk = read(source);
      if (chunk.length == 0) {
        continue;
      }
      progressed = true;
      source.offset += chunk.length;
      int lineStart = 0;
      for (int i = 0; i < chunk.length; i++) {
        if (chunk[i] == '\n') {
          source.pending.write(chunk, lineStart, i - lineStart);
          writer.write(source.stream, source.pending.toByteArray(), true);
          source.pending.reset();
          lineStart = i + 1;
        }
      }
      source.pending.write(chunk, lineStart, chunk.length - lineStart);
      while (source.pending.size() >= CriLogWriter.MAX_LINE_BYTES) {
        byte[] all = source.pending.toByteArray();
        writer.write(source.stream, java.util.Arrays.copyOf(all, CriLogWriter.MAX_LINE_BYTES), false);
        source.pending.reset();
        source.pending.write(all, CriLogWriter.MAX_LINE_BYTES, all.length - CriLogWriter.MAX_LINE_BYTES);
      }
    }
    return progressed;
  }

  private static byte[] read(Source source) throws IOException {
    return source.file.readFrom(source.offset);
  }

  /**
   * Stops following and waits for a write or checkpoint in progress: the backend closes its record
   * store right after its pumps, and a checkpoint landing later would write into a closed store.
   */
  @Override
  public void close() {
    closed = true;
    closing.countDown();
    if (thread != null && thread != Thread.currentThread()) {
      try {
        if (!thread.join(CLOSE_WAIT)) {
          LOG.warn("log of container {} still being written {} after it was stopped", containerId, CLOSE_WAIT);
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}

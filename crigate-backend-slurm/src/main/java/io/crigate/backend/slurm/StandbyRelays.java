package io.crigate.backend.slurm;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Relay steps started before the connection that will use them. Starting a step is most of a
 * forwarded connection's cost (srun's launch, and over SSH a channel whose session sshd sets up),
 * and a client that opened one connection to a port (a browser, a database driver's pool) mostly
 * opens more. So once a connection is up, the next relay to the same container and port is
 * started, to wait there for a while; a connection that finds one only tells it to connect.
 *
 * <p>At most one waits per container and port, so an idle forward holds one step in the job (and
 * over SSH one channel). It is dismissed after {@code keepFor}, on {@link #close}, or by the job's
 * end; one that died meanwhile fails to connect, and the connection starts its own.
 */
final class StandbyRelays implements AutoCloseable {

  private record Key(String containerId, int port) {}

  private final Duration keepFor;
  private final Map<Key, CompletableFuture<PortRelay>> waiting = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** @param keepFor how long a started relay waits for its connection; zero starts none ahead */
  StandbyRelays(Duration keepFor) {
    this.keepFor = keepFor;
  }

  /** Whether a relay waits for this container and port. */
  boolean waits(RunningJob job, int port) {
    return waiting.containsKey(new Key(job.containerId(), port));
  }

  /** The relay waiting for this container and port, if one does; it is no longer waiting. */
  Optional<PortRelay> take(RunningJob job, int port) {
    CompletableFuture<PortRelay> relay = waiting.remove(new Key(job.containerId(), port));
    if (relay == null) {
      return Optional.empty();
    }
    try {
      return Optional.of(relay.join()); // a start still in flight is nearer its end than a new one
    } catch (CompletionException e) {
      return Optional.empty();
    }
  }

  /** Starts a relay to wait for the next connection to this container and port, unless one waits. */
  void offer(RunningJob job, int port) {
    if (keepFor.isZero() || closed) {
      return;
    }
    Key key = new Key(job.containerId(), port);
    CompletableFuture<PortRelay> relay = new CompletableFuture<>();
    if (waiting.putIfAbsent(key, relay) != null) {
      return;
    }
    if (closed && waiting.remove(key, relay)) {
      return; // closed between the check and the put; nothing started yet
    }
    Thread.ofVirtual().name("portforward-standby").start(() -> {
      try {
        relay.complete(PortRelay.start(job, port));
      } catch (RuntimeException e) {
        waiting.remove(key, relay);
        relay.completeExceptionally(e);
        return;
      }
      try {
        Thread.sleep(keepFor);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (waiting.remove(key, relay)) {
        relay.join().dismiss();
      }
    });
  }

  /** Dismisses every waiting relay, also those still starting; none is started after. */
  @Override
  public void close() {
    closed = true;
    for (Key key : waiting.keySet()) {
      CompletableFuture<PortRelay> relay = waiting.remove(key);
      if (relay != null) {
        relay.thenAccept(PortRelay::dismiss);
      }
    }
  }
}

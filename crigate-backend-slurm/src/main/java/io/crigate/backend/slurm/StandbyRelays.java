package io.crigate.backend.slurm;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * Relay steps started before the connections that will use them. Starting a step is most of a
 * forwarded connection's cost (srun's launch, and over SSH a channel that runs the login's shell),
 * and a client that opened one connection to a port mostly opens more, as many at once as it did
 * before (a browser loading a page's parts, a database driver's pool). So while a connection to a
 * container's port is up, a relay waits in the job for the next one, and once the last has ended
 * as many wait as connections were asked for at once, up to {@link #MOST_WAITING}; a connection
 * that finds one only tells it to connect.
 *
 * <p>An idle forward thus holds a step in the job for each (over SSH a channel each). One is
 * dismissed after {@code keepFor}, on {@link #close}, or by the job's end; one that died meanwhile
 * fails to connect, and the connection starts its own.
 */
final class StandbyRelays implements AutoCloseable {

  /** Relays waiting per container and port at most, whatever the client's concurrency. */
  static final int MOST_WAITING = 4;

  private record Key(String containerId, int port) {}

  private final Duration keepFor;
  // guarded by this
  private final Map<Key, List<CompletableFuture<PortRelay>>> waiting = new HashMap<>();
  private final Map<Key, Use> uses = new HashMap<>();
  private boolean closed;

  /** @param keepFor how long a started relay waits for its connection; zero starts none ahead */
  StandbyRelays(Duration keepFor) {
    this.keepFor = keepFor;
  }

  /** Relays waiting (or starting to), over every container and port. */
  synchronized int count() {
    return waiting.values().stream().mapToInt(List::size).sum();
  }

  /** Whether a relay waits for this container and port. */
  synchronized boolean waits(RunningJob job, int port) {
    return waiting.containsKey(new Key(job.containerId(), port));
  }

  /** A relay waiting for this container and port, if one does; it is no longer waiting. */
  Optional<PortRelay> take(RunningJob job, int port) {
    CompletableFuture<PortRelay> relay;
    synchronized (this) {
      Key key = new Key(job.containerId(), port);
      List<CompletableFuture<PortRelay>> ready = waiting.get(key);
      if (ready == null) {
        return Optional.empty();
      }
      relay = ready.getFirst(); // the oldest, which is likeliest to have started
      forget(key, relay);
    }
    try {
      return Optional.of(relay.join()); // a start still in flight is nearer its end than a new one
    } catch (CompletionException e) {
      return Optional.empty();
    }
  }

  /**
   * A connection to this container and port is up. If no relay waits, one is started, for a client
   * that opens its next connection while this one is still up.
   *
   * @param asked connections to the pod's port the client has asked for and not yet ended, this
   *     one and every one open included: a burst's cold connections need not be up together (over
   *     SSH a login shell that is slow to start staggers them), so counting only those up would miss its size
   * @return to run when the connection has ended: when none is left open, relays are started until
   *     as many wait as connections were asked for at once, so none competes with the connections
   *     of a burst for the CPU while they run
   */
  Runnable connected(RunningJob job, int port, int asked) {
    Key key = new Key(job.containerId(), port);
    Use use;
    synchronized (this) {
      use = uses.computeIfAbsent(key, k -> new Use());
      use.open++;
      use.peak = Math.max(use.peak, asked);
    }
    standBy(key, job, 1);
    return () -> {
      int wanted;
      synchronized (this) {
        use.open--;
        if (use.open > 0) {
          return;
        }
        uses.remove(key);
        wanted = use.peak;
      }
      standBy(key, job, wanted);
    };
  }

  /** Connections to one container and port: open now, and most asked for at once since none was open. */
  private static final class Use {
    int open;
    int peak;
  }

  /** Starts relays until {@code wanted} (at most {@link #MOST_WAITING}) wait for this container and port. */
  private void standBy(Key key, RunningJob job, int wanted) {
    List<CompletableFuture<PortRelay>> toStart = new ArrayList<>();
    synchronized (this) {
      if (closed || keepFor.isZero()) {
        return;
      }
      List<CompletableFuture<PortRelay>> ready = waiting.computeIfAbsent(key, k -> new ArrayList<>());
      for (int i = ready.size(); i < Math.min(wanted, MOST_WAITING); i++) {
        CompletableFuture<PortRelay> relay = new CompletableFuture<>();
        ready.add(relay);
        toStart.add(relay);
      }
      if (ready.isEmpty()) {
        waiting.remove(key);
      }
    }
    toStart.forEach(relay -> Thread.ofVirtual().name("portforward-standby").start(() -> keepWaiting(key, job, relay)));
  }

  /** Starts the relay and dismisses it after {@code keepFor} unless a connection took it. */
  private void keepWaiting(Key key, RunningJob job, CompletableFuture<PortRelay> relay) {
    try {
      relay.complete(PortRelay.start(job, key.port()));
    } catch (RuntimeException e) {
      forget(key, relay);
      relay.completeExceptionally(e);
      return;
    }
    try {
      Thread.sleep(keepFor);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (forget(key, relay)) {
      relay.join().dismiss();
    }
  }

  /** Whether the relay was still waiting; it is not any more. */
  private synchronized boolean forget(Key key, CompletableFuture<PortRelay> relay) {
    List<CompletableFuture<PortRelay>> ready = waiting.get(key);
    if (ready == null || !ready.remove(relay)) {
      return false;
    }
    if (ready.isEmpty()) {
      waiting.remove(key);
    }
    return true;
  }

  /** Dismisses every waiting relay, also those still starting; none is started after. */
  @Override
  public void close() {
    List<CompletableFuture<PortRelay>> all = new ArrayList<>();
    synchronized (this) {
      closed = true;
      waiting.values().forEach(all::addAll);
      waiting.clear();
    }
    all.forEach(relay -> relay.thenAccept(PortRelay::dismiss));
  }
}

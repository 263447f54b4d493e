package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.apache.sshd.client.session.ClientSession;

/**
 * The SSH connections of one runner. Each carries at most {@code channelsPerSession} commands at
 * once, since sshd refuses channels beyond its {@code MaxSessions} (OpenSSH: 10); more connections
 * are opened as load needs, up to {@link #MAX_SESSIONS}, and reused afterwards (a key exchange per
 * squeue would dominate a poll). When every channel is busy a command waits, within its deadline,
 * for one to end. A connection is dropped only when it is broken, never because one channel could
 * not be opened on it, so a refusal never kills the commands running beside it.
 */
final class SshSessions implements AutoCloseable {

  /** Beyond this many connections a burst waits: sshd's MaxStartups throttles parallel logins anyway. */
  static final int MAX_SESSIONS = 8;

  /** One connection and how many commands it carries now ({@code inUse}: guarded by the pool's lock). */
  static final class Slot {
    private final ClientSession session;
    private int inUse;

    private Slot(ClientSession session) {
      this.session = session;
    }

    ClientSession session() {
      return session;
    }
  }

  private final Supplier<ClientSession> connect;
  private final int channelsPerSession;
  private final String target;
  /** Not a monitor: waiting for a channel must not pin a virtual thread's carrier. */
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition released = lock.newCondition();
  private final List<Slot> slots = new ArrayList<>();
  private int opening;
  private boolean closed;

  /** @param connect opens and authenticates a session, throwing a CrigateException when it cannot */
  SshSessions(Supplier<ClientSession> connect, int channelsPerSession, String target) {
    this.connect = connect;
    this.channelsPerSession = channelsPerSession;
    this.target = target;
  }

  /** A connection with a free channel for one command; give it back with {@link #release}. */
  Slot acquire(Duration wait) {
    long deadline = System.nanoTime() + wait.toNanos();
    lock.lock();
    try {
      while (true) {
        if (closed) {
          throw new CrigateException.Unavailable("ssh %s: the runner is closed".formatted(target));
        }
        pruneBroken();
        for (Slot slot : slots) {
          if (slot.inUse < channelsPerSession && slot.session.isOpen()) {
            slot.inUse++;
            return slot;
          }
        }
        if (slots.size() + opening < MAX_SESSIONS) {
          opening++;
          break;
        }
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          throw new CrigateException.Unavailable("ssh %s: all %d sessions are running %d commands each; gave up after %d s"
              .formatted(target, MAX_SESSIONS, channelsPerSession, wait.toSeconds()));
        }
        released.awaitNanos(left);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("ssh %s: interrupted while waiting for a channel".formatted(target));
    } finally {
      lock.unlock();
    }
    return opened();
  }

  /** Connects outside the lock: a connect and login take round trips, other commands must not wait on them. */
  private Slot opened() {
    ClientSession session;
    try {
      session = connect.get();
    } catch (RuntimeException e) {
      lock.lock();
      try {
        openingEnded();
      } finally {
        lock.unlock();
      }
      throw e;
    }
    return settleOpening(session);
  }

  /** Another session may be opened in this one's place; called with {@link #lock} held. */
  private void openingEnded() {
    opening--;
    released.signalAll();
  }

  private Slot settleOpening(ClientSession session) {
    lock.lock();
    try {
      openingEnded();
      if (closed) {
        session.close(true);
        throw new CrigateException.Unavailable("ssh %s: the runner is closed".formatted(target));
      }
      Slot slot = new Slot(session);
      slot.inUse = 1;
      slots.add(slot);
      return slot;
    } finally {
      lock.unlock();
    }
  }

  void release(Slot slot) {
    lock.lock();
    try {
      slot.inUse--;
      pruneBroken();
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /** The connection failed under a running command: close it; its other commands fail with it, as they would anyway. */
  void broken(Slot slot) {
    slot.session.close(true);
  }

  private void pruneBroken() {
    for (Iterator<Slot> it = slots.iterator(); it.hasNext(); ) {
      Slot slot = it.next();
      if (slot.inUse == 0 && !slot.session.isOpen()) {
        it.remove();
      }
    }
  }

  @Override
  public void close() {
    lock.lock();
    try {
      closed = true;
      slots.forEach(slot -> slot.session.close(true));
      slots.clear();
      released.signalAll();
    } finally {
      lock.unlock();
    }
  }
}

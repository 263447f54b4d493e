package io.crigate.core.state;

import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The one SQLite connection behind {@link GatewayState}. Every use holds the lock: SQLite admits one
 * writer at a time anyway, and one connection keeps the pragmas (WAL, synchronous=NORMAL) in force for
 * every statement. Each unit of work is one transaction, so a {@code kill -9} leaves either all of it
 * or none of it on disk.
 *
 * <p>Changes {@link #defer deferred} (ownership removals, and key/value changes made inside
 * {@link #deferringChanges}) are held back and committed at the start of the next transaction,
 * whichever thread runs it: a change still reaches disk before anything written after it, only
 * without a commit (and its write to the WAL) of its own.
 */
final class Database implements AutoCloseable {

  /** Bump together with a migration in {@link #migrate()}. */
  private static final int SCHEMA_VERSION = 1;

  @FunctionalInterface
  interface Work<T> {
    T run(Connection connection) throws SQLException;
  }

  private final Connection connection;
  private final Path file;
  private final LongConsumer writeNanos;
  /**
   * Changes held back by {@link #defer}, in the order they were made. Any thread adds without a lock
   * (an event loop drops a relayed removal's record here); only {@link #transaction}, under this
   * object's lock, takes them off, and only once they are committed.
   */
  private final Queue<Work<?>> deferred = new ConcurrentLinkedQueue<>();
  private final ThreadLocal<Boolean> deferring = ThreadLocal.withInitial(() -> false);

  private Database(Connection connection, Path file, LongConsumer writeNanos) {
    this.connection = connection;
    this.file = file;
    this.writeNanos = writeNanos;
  }

  /** {@code writeNanos} hears how long each {@link #write} took, commit included. */
  static Database open(Path file, LongConsumer writeNanos) {
    SqliteNativeLibrary.useKeptCopy(file.toAbsolutePath().getParent().resolve("native"));
    try {
      Connection connection = DriverManager.getConnection("jdbc:sqlite:" + file.toAbsolutePath());
      Database database = new Database(connection, file, writeNanos);
      database.configure();
      database.migrate();
      return database;
    } catch (SQLException e) {
      throw new CrigateException.FailedPrecondition("cannot open state database %s: %s".formatted(file, e.getMessage()));
    }
  }

  /**
   * Runs {@code work} in one transaction, rolled back if it throws. The changes held back by
   * {@link #deferringChanges} go first, in the same transaction, so they never land after a later
   * write and a read sees them; a rollback keeps them for the next transaction.
   */
  synchronized <T> T transaction(Work<T> work) {
    try {
      connection.setAutoCommit(false);
      try {
        int ran = 0;
        for (Work<?> change : deferred) { // also one added meanwhile: the queue's iterator may see it
          change.run(connection);
          ran++;
        }
        T result = work.run(connection);
        connection.commit();
        for (; ran > 0; ran--) {
          deferred.poll(); // the oldest first, as they ran: nobody else takes from the queue
        }
        return result;
      } catch (SQLException | RuntimeException e) {
        connection.rollback();
        throw e;
      } finally {
        connection.setAutoCommit(true);
      }
    } catch (SQLException e) {
      // The caller has not told the kubelet anything yet, so it can still fail the call cleanly.
      throw new CrigateException.Unavailable("state database %s: %s".formatted(file, e.getMessage()), e);
    }
  }

  /**
   * A key/value change: committed now in its own transaction or, on a thread inside
   * {@link #deferringChanges}, held back for the next transaction.
   */
  void change(Work<?> work) {
    if (deferring.get()) {
      defer(work);
    } else {
      transaction(work);
    }
  }

  /**
   * Holds {@code change} back for the start of the next transaction, in order, without taking the
   * lock: a caller on an event loop never waits for a commit in progress. A {@code kill -9} before
   * that transaction loses it, so defer only what the next start can tell again (a removal: the
   * record of an object the backend no longer has is reconciled away).
   */
  void defer(Work<?> change) {
    deferred.add(change);
  }

  /**
   * Runs {@code work} with this thread's key/value {@link #change}s held back until the next
   * transaction, so that they share its commit instead of paying for one each.
   */
  <T> T deferringChanges(Supplier<T> work) {
    boolean outer = deferring.get();
    deferring.set(true);
    try {
      return work.get();
    } finally {
      deferring.set(outer);
    }
  }

  /**
   * Commits {@code work}, then applies {@code afterCommit} (an in-memory index update) under the same
   * lock, so the index never shows a row the disk lacks and two writers cannot reorder their updates.
   */
  synchronized void write(Work<?> work, Runnable afterCommit) {
    long start = System.nanoTime();
    transaction(work);
    writeNanos.accept(System.nanoTime() - start);
    afterCommit.run();
  }

  private void configure() throws SQLException {
    try (Statement statement = connection.createStatement()) {
      // WAL: readers never block the writer and a torn write is never visible after a crash.
      statement.execute("PRAGMA journal_mode=WAL");
      // FULL: a committed transaction survives power loss, not only a process crash.
      // NORMAL: a commit is in the WAL (the OS holds it) before the CRI call returns, so a killed
      // crigate loses nothing; only a power cut can drop the last commits, and then reconcile adopts
      // whatever the backends still run. FULL would add an fsync to every pod and container call.
      statement.execute("PRAGMA synchronous=NORMAL");
      statement.execute("PRAGMA busy_timeout=5000");
    }
  }

  private void migrate() throws SQLException {
    transaction(connection -> {
      try (Statement statement = connection.createStatement()) {
        int version;
        try (var rows = statement.executeQuery("PRAGMA user_version")) {
          version = rows.next() ? rows.getInt(1) : 0;
        }
        if (version > SCHEMA_VERSION) {
          throw new SQLException("schema version %d is newer than this crigate (%d)".formatted(version, SCHEMA_VERSION));
        }
        if (version < 1) {
          statement.execute("""
              CREATE TABLE sandboxes (
                id TEXT PRIMARY KEY, backend TEXT NOT NULL, handler TEXT NOT NULL,
                pod_namespace TEXT NOT NULL, pod_name TEXT NOT NULL, pod_uid TEXT NOT NULL,
                created_at_ms INTEGER NOT NULL)""");
          statement.execute("""
              CREATE TABLE containers (
                id TEXT PRIMARY KEY, sandbox_id TEXT NOT NULL, backend TEXT NOT NULL,
                name TEXT NOT NULL, created_at_ms INTEGER NOT NULL)""");
          statement.execute("CREATE INDEX containers_by_sandbox ON containers(sandbox_id)");
          statement.execute("""
              CREATE TABLE backend_entries (
                backend TEXT NOT NULL, key TEXT NOT NULL, value BLOB NOT NULL,
                PRIMARY KEY (backend, key)) WITHOUT ROWID""");
          statement.execute("PRAGMA user_version=" + SCHEMA_VERSION);
        }
      }
      return null;
    });
  }

  @Override
  public synchronized void close() {
    if (!deferred.isEmpty()) {
      transaction(connection -> null); // held-back changes are still promised to disk
    }
    try {
      connection.close();
    } catch (SQLException e) {
      throw new CrigateException.Unavailable("closing state database %s: %s".formatted(file, e.getMessage()), e);
    }
  }
}

package io.crigate.core.state;

import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * crigate's durable memory: which backend owns each sandbox and container, and each backend's own
 * key/value records. One SQLite file ({@code crigate.db}) in WAL mode with {@code synchronous=NORMAL};
 * every change is a single transaction, so a {@code kill -9} at any moment leaves the file either
 * before or after the change. Ownership is also held in memory, loaded here on open, so routing a
 * call costs a hash lookup rather than a query.
 *
 * <p>A new sandbox or container record is committed before the call that made it returns: crigate
 * must not forget what it created. A removal is not: it leaves memory at once and its delete waits
 * for the next transaction, whoever runs it (normally the next pod's RunPodSandbox), so a pod's
 * lifecycle costs two commits instead of four. A {@code kill -9} in between leaves the record of an
 * object the backend no longer has, which the reconcile at start forgets (the backend does not
 * report it); until then, or when that backend cannot be listed, a call on it gets the backend's
 * NOT_FOUND, and a removal of it drops the record again.
 */
public final class GatewayState implements AutoCloseable {

  /** The database file inside the state directory. */
  public static final String FILE_NAME = "crigate.db";

  private final Database database;
  private final OwnershipIndex index = new OwnershipIndex();
  private final SandboxStore sandboxes;
  private final ContainerStore containers;

  private GatewayState(Database database) {
    this.database = database;
    this.sandboxes = new SandboxStore(database, index);
    this.containers = new ContainerStore(database, index);
  }

  /**
   * Opens (creating if needed) {@code stateDir/crigate.db} and loads the ownership index.
   *
   * @throws CrigateException.FailedPrecondition when the directory or database cannot be opened
   */
  public static GatewayState open(Path stateDir) {
    return open(stateDir, nanos -> {});
  }

  /**
   * As {@link #open(Path)}; {@code ownershipWriteNanos} hears the duration of each committed write
   * of the gateway's own records (sandboxes, containers), for the write-latency metric.
   */
  public static GatewayState open(Path stateDir, LongConsumer ownershipWriteNanos) {
    Path file = stateDir.resolve(FILE_NAME);
    try {
      PrivateFiles.directory(stateDir);
      // SQLite gives its -wal and -shm files the mode of the database file, so creating that one
      // 0600 before SQLite does keeps all three private.
      PrivateFiles.file(file);
    } catch (UncheckedIOException e) {
      throw new CrigateException.FailedPrecondition("cannot create state directory %s: %s".formatted(stateDir,
          e.getCause()));
    }
    GatewayState state = new GatewayState(Database.open(file, ownershipWriteNanos));
    // Left by an older crigate, or by a crash, with the umask's mode.
    PrivateFiles.tightenIfPresent(stateDir.resolve(FILE_NAME + "-wal"));
    PrivateFiles.tightenIfPresent(stateDir.resolve(FILE_NAME + "-shm"));
    state.load();
    return state;
  }

  /** A crash-safe key/value namespace that only {@code backendName} reads and writes. */
  public DurableStore backendStore(String backendName) {
    return new SqliteDurableStore(database, backendName);
  }

  /**
   * Runs {@code work} with the key/value store changes this thread makes ({@link #backendStore}
   * put, putAll, remove) held back, to commit at the start of the state database's next
   * transaction, whoever runs it: they still reach disk before any later write, in order, and a
   * read sees them, but share that transaction's commit. A {@code kill -9} before then loses them,
   * so use this only where the next write is the one that makes them matter (CreateContainer: the
   * plugins' records of a container commit with its ownership record).
   */
  public <T> T deferringStoreChanges(Supplier<T> work) {
    return database.deferringChanges(work);
  }

  public SandboxStore sandboxes() {
    return sandboxes;
  }

  public ContainerStore containers() {
    return containers;
  }

  /**
   * Makes {@code backend}'s records exactly what it reported: adopts new ids (taking them over from
   * another backend if need be) and forgets its ids missing from the report, in one transaction.
   * Call only with a complete answer from the backend; an unreachable backend's records must stay.
   */
  public void replaceBackend(String backend, Collection<SandboxRecord> reportedSandboxes,
      Collection<ContainerRecord> reportedContainers) {
    Set<String> sandboxIds = new HashSet<>();
    reportedSandboxes.forEach(sandbox -> sandboxIds.add(sandbox.id()));
    Set<String> containerIds = new HashSet<>();
    reportedContainers.forEach(container -> containerIds.add(container.id()));
    database.write(connection -> {
      try (PreparedStatement sandboxRows = connection.prepareStatement("DELETE FROM sandboxes WHERE backend = ?");
          PreparedStatement containerRows = connection.prepareStatement("DELETE FROM containers WHERE backend = ?")) {
        sandboxRows.setString(1, backend);
        sandboxRows.executeUpdate();
        containerRows.setString(1, backend);
        containerRows.executeUpdate();
      }
      for (SandboxRecord sandbox : reportedSandboxes) {
        SandboxStore.insert(connection, sandbox);
      }
      for (ContainerRecord container : reportedContainers) {
        ContainerStore.insert(connection, container);
      }
      return null;
    }, () -> {
      index.sandboxes.values().removeIf(sandbox -> sandbox.backend().equals(backend) && !sandboxIds.contains(sandbox.id()));
      index.containers.values().removeIf(c -> c.backend().equals(backend) && !containerIds.contains(c.id()));
      reportedSandboxes.forEach(sandbox -> index.sandboxes.put(sandbox.id(), sandbox));
      reportedContainers.forEach(container -> index.containers.put(container.id(), container));
    });
  }

  private void load() {
    database.transaction(connection -> {
      loadSandboxes(connection);
      loadContainers(connection);
      return null;
    });
  }

  private void loadSandboxes(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT id, backend, handler, pod_namespace, pod_name, pod_uid, created_at_ms FROM sandboxes")) {
      while (rows.next()) {
        SandboxRecord sandbox = new SandboxRecord(rows.getString(1), rows.getString(2), rows.getString(3),
            rows.getString(4), rows.getString(5), rows.getString(6), Instant.ofEpochMilli(rows.getLong(7)));
        index.sandboxes.put(sandbox.id(), sandbox);
      }
    }
  }

  private void loadContainers(Connection connection) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(
            "SELECT id, sandbox_id, backend, name, created_at_ms FROM containers")) {
      while (rows.next()) {
        ContainerRecord container = new ContainerRecord(rows.getString(1), rows.getString(2), rows.getString(3),
            rows.getString(4), Instant.ofEpochMilli(rows.getLong(5)));
        index.containers.put(container.id(), container);
      }
    }
  }

  @Override
  public void close() {
    database.close();
  }
}

package io.crigate.core.state;

import io.crigate.spi.CrigateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Which backend owns each pod sandbox. Reads come from memory; a new record reaches disk before
 * {@link #add} returns, a removal with the next transaction.
 */
public final class SandboxStore {

  private final Database database;
  private final OwnershipIndex index;

  SandboxStore(Database database, OwnershipIndex index) {
    this.database = database;
    this.index = index;
  }

  public Optional<SandboxRecord> find(String id) {
    return Optional.ofNullable(index.sandboxes.get(id));
  }

  /** @throws CrigateException.NotFound when no backend is recorded as owning {@code id} */
  public SandboxRecord get(String id) {
    return find(id).orElseThrow(() -> new CrigateException.NotFound("sandbox %s".formatted(id)));
  }

  /** @throws CrigateException.AlreadyExists when {@code id} is already recorded */
  public void add(SandboxRecord sandbox) {
    synchronized (database) {
      if (index.sandboxes.containsKey(sandbox.id())) {
        throw new CrigateException.AlreadyExists(
            "sandbox %s is already owned by backend %s".formatted(sandbox.id(), index.sandboxes.get(sandbox.id()).backend()));
      }
      database.write(connection -> insert(connection, sandbox), () -> index.sandboxes.put(sandbox.id(), sandbox));
    }
  }

  /**
   * Forgets the sandbox and every container in it: at once in memory, on disk with the next
   * transaction (one delete for both; see {@link GatewayState}), so a removal costs no commit of its
   * own. Takes no lock, so an event loop may call it. Forgetting an unknown id is a no-op.
   */
  public void remove(String id) {
    database.defer(connection -> delete(connection, id));
    index.forgetSandbox(id);
  }

  public List<SandboxRecord> all() {
    return List.copyOf(index.sandboxes.values());
  }

  /** The most recently created sandbox of the pod with {@code podUid}, if crigate knows one. */
  public Optional<SandboxRecord> newestOfPod(String podUid) {
    return index.sandboxes.values().stream()
        .filter(sandbox -> sandbox.podUid().equals(podUid))
        .max(Comparator.comparing(SandboxRecord::createdAt));
  }

  public List<SandboxRecord> ownedBy(String backend) {
    return index.sandboxes.values().stream().filter(sandbox -> sandbox.backend().equals(backend)).toList();
  }

  static int insert(Connection connection, SandboxRecord sandbox) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "INSERT OR REPLACE INTO sandboxes(id, backend, handler, pod_namespace, pod_name, pod_uid, created_at_ms)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)")) {
      statement.setString(1, sandbox.id());
      statement.setString(2, sandbox.backend());
      statement.setString(3, sandbox.handler());
      statement.setString(4, sandbox.podNamespace());
      statement.setString(5, sandbox.podName());
      statement.setString(6, sandbox.podUid());
      statement.setLong(7, sandbox.createdAt().toEpochMilli());
      return statement.executeUpdate();
    }
  }

  static int delete(Connection connection, String id) throws SQLException {
    try (PreparedStatement containers = connection.prepareStatement("DELETE FROM containers WHERE sandbox_id = ?");
        PreparedStatement sandbox = connection.prepareStatement("DELETE FROM sandboxes WHERE id = ?")) {
      containers.setString(1, id);
      containers.executeUpdate();
      sandbox.setString(1, id);
      return sandbox.executeUpdate();
    }
  }
}

package io.crigate.core.state;

import io.crigate.spi.CrigateException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * Which sandbox and backend own each container. Reads come from memory; a new record reaches disk
 * before {@link #add} returns, a removal with the next transaction.
 */
public final class ContainerStore {

  private final Database database;
  private final OwnershipIndex index;

  ContainerStore(Database database, OwnershipIndex index) {
    this.database = database;
    this.index = index;
  }

  public Optional<ContainerRecord> find(String id) {
    return Optional.ofNullable(index.containers.get(id));
  }

  /** @throws CrigateException.NotFound when no backend is recorded as owning {@code id} */
  public ContainerRecord get(String id) {
    return find(id).orElseThrow(() -> new CrigateException.NotFound("container %s".formatted(id)));
  }

  /** @throws CrigateException.AlreadyExists when {@code id} is already recorded */
  public void add(ContainerRecord container) {
    synchronized (database) {
      if (index.containers.containsKey(container.id())) {
        throw new CrigateException.AlreadyExists("container %s is already owned by backend %s"
            .formatted(container.id(), index.containers.get(container.id()).backend()));
      }
      database.write(connection -> insert(connection, container), () -> index.containers.put(container.id(), container));
    }
  }

  /**
   * Forgets the container: at once in memory, on disk with the next transaction (see
   * {@link GatewayState}), so a removal costs no commit of its own. Takes no lock, so an event loop
   * may call it. Forgetting an unknown id is a no-op.
   */
  public void remove(String id) {
    database.defer(connection -> delete(connection, id));
    index.containers.remove(id);
  }

  public List<ContainerRecord> inSandbox(String sandboxId) {
    return index.containers.values().stream().filter(container -> container.sandboxId().equals(sandboxId)).toList();
  }

  public List<ContainerRecord> all() {
    return List.copyOf(index.containers.values());
  }

  static int insert(Connection connection, ContainerRecord container) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(
        "INSERT OR REPLACE INTO containers(id, sandbox_id, backend, name, created_at_ms) VALUES (?, ?, ?, ?, ?)")) {
      statement.setString(1, container.id());
      statement.setString(2, container.sandboxId());
      statement.setString(3, container.backend());
      statement.setString(4, container.name());
      statement.setLong(5, container.createdAt().toEpochMilli());
      return statement.executeUpdate();
    }
  }

  private static int delete(Connection connection, String id) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement("DELETE FROM containers WHERE id = ?")) {
      statement.setString(1, id);
      return statement.executeUpdate();
    }
  }
}

package io.crigate.core.state;

import io.crigate.spi.DurableStore;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One backend's namespace in the shared {@code backend_entries} table. Every call is its own
 * transaction, except changes made inside {@link GatewayState#deferringStoreChanges}, which commit
 * with the next transaction of the state database.
 */
final class SqliteDurableStore implements DurableStore {

  private static final String UPSERT = "INSERT OR REPLACE INTO backend_entries(backend, key, value) VALUES (?, ?, ?)";

  private final Database database;
  private final String backend;

  SqliteDurableStore(Database database, String backend) {
    this.database = database;
    this.backend = backend;
  }

  @Override
  public void put(String key, byte[] value) {
    // One row, one plain update: the JDBC batch path costs more than the write itself.
    database.change(connection -> {
      try (PreparedStatement statement = connection.prepareStatement(UPSERT)) {
        statement.setString(1, backend);
        statement.setString(2, key);
        statement.setBytes(3, value);
        return statement.executeUpdate();
      }
    });
  }

  @Override
  public void putAll(Map<String, byte[]> entries) {
    Map<String, byte[]> copy = new LinkedHashMap<>(entries); // a held-back change must not see later edits of the map
    database.change(connection -> {
      try (PreparedStatement statement = connection.prepareStatement(UPSERT)) {
        for (Map.Entry<String, byte[]> entry : copy.entrySet()) {
          statement.setString(1, backend);
          statement.setString(2, entry.getKey());
          statement.setBytes(3, entry.getValue());
          statement.addBatch();
        }
        return statement.executeBatch().length;
      }
    });
  }

  @Override
  public Optional<byte[]> get(String key) {
    return database.transaction(connection -> {
      try (PreparedStatement statement = connection.prepareStatement(
          "SELECT value FROM backend_entries WHERE backend = ? AND key = ?")) {
        statement.setString(1, backend);
        statement.setString(2, key);
        try (ResultSet rows = statement.executeQuery()) {
          return rows.next() ? Optional.of(rows.getBytes(1)) : Optional.empty();
        }
      }
    });
  }

  @Override
  public void remove(String key) {
    database.change(connection -> {
      try (PreparedStatement statement = connection.prepareStatement(
          "DELETE FROM backend_entries WHERE backend = ? AND key = ?")) {
        statement.setString(1, backend);
        statement.setString(2, key);
        return statement.executeUpdate();
      }
    });
  }

  @Override
  public Map<String, byte[]> entries() {
    return database.transaction(connection -> {
      try (PreparedStatement statement = connection.prepareStatement(
          "SELECT key, value FROM backend_entries WHERE backend = ?")) {
        statement.setString(1, backend);
        Map<String, byte[]> entries = new TreeMap<>();
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            entries.put(rows.getString(1), rows.getBytes(2));
          }
        }
        return Collections.unmodifiableMap(entries);
      }
    });
  }
}

package io.crigate.core.state;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GatewayStateTest {

  static final Instant CREATED = Instant.parse("2026-01-02T03:04:05Z");

  @TempDir Path dir;

  static SandboxRecord sandbox(String id, String backend) {
    return new SandboxRecord(id, backend, "default", "ns", "pod-" + id, "uid-" + id, CREATED);
  }

  static ContainerRecord container(String id, String sandboxId, String backend) {
    return new ContainerRecord(id, sandboxId, backend, "c-" + id, CREATED);
  }

  @Test
  void ownershipSurvivesReopen() {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      state.containers().add(container("c1", "s1", "alpha"));
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.sandboxes().get("s1")).isEqualTo(sandbox("s1", "alpha"));
      assertThat(state.containers().get("c1")).isEqualTo(container("c1", "s1", "alpha"));
    }
  }

  @Test
  void eachCommittedOwnershipWriteIsTimedAndARolledBackOneIsNot() {
    List<Long> writes = new java.util.concurrent.CopyOnWriteArrayList<>();
    try (GatewayState state = GatewayState.open(dir, writes::add)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      state.containers().add(container("c1", "s1", "alpha"));
      state.containers().remove("c1");
      assertThat(writes).as("a removal has no commit of its own").hasSize(2).allSatisfy(nanos -> assertThat(nanos).isPositive());
      state.backendStore("alpha").put("k", "v".getBytes());
      assertThat(writes).as("backend stores are timed by their own wrapper").hasSize(2);
    }
  }

  /** Issue 16 item 2: the database holds pod configs and env values, so nobody else may read it. */
  @Test
  void theStateDirAndEveryDatabaseFileArePrivateAndWiderOnesAreTightened() throws Exception {
    Path stateDir = Files.createDirectory(dir.resolve("state"),
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
    try (GatewayState state = GatewayState.open(stateDir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      assertThat(mode(stateDir)).isEqualTo("rwx------");
      for (String file : List.of("crigate.db", "crigate.db-wal", "crigate.db-shm")) {
        assertThat(mode(stateDir.resolve(file))).as(file).isEqualTo("rw-------");
      }
    }
    Files.setPosixFilePermissions(stateDir, PosixFilePermissions.fromString("rwxrwxrwx"));
    Files.setPosixFilePermissions(stateDir.resolve("crigate.db"), PosixFilePermissions.fromString("rw-r--r--"));
    try (GatewayState state = GatewayState.open(stateDir)) {
      assertThat(mode(stateDir)).isEqualTo("rwx------");
      assertThat(mode(stateDir.resolve("crigate.db"))).isEqualTo("rw-------");
      assertThat(state.sandboxes().get("s1")).isEqualTo(sandbox("s1", "alpha"));
    }
  }

  private static String mode(Path path) throws Exception {
    return PosixFilePermissions.toString(Files.getPosixFilePermissions(path));
  }

  @Test
  void addingAnIdTwiceIsAlreadyExistsAndGettingAMissingOneIsNotFound() {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      assertThatThrownBy(() -> state.sandboxes().add(sandbox("s1", "beta")))
          .isInstanceOf(CrigateException.AlreadyExists.class).hasMessageContaining("alpha");
      assertThatThrownBy(() -> state.containers().get("c9")).isInstanceOf(CrigateException.NotFound.class).hasMessage("container c9");
    }
  }

  @Test
  void removingASandboxForgetsItsContainersOnDiskToo() {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      state.containers().add(container("c1", "s1", "alpha"));
      state.containers().add(container("c2", "s2", "alpha"));
      state.sandboxes().remove("s1");
      assertThat(state.containers().find("c1")).isEmpty();
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.sandboxes().all()).isEmpty();
      assertThat(state.containers().all()).extracting(ContainerRecord::id).containsExactly("c2");
    }
  }

  @Test
  void replaceBackendAdoptsAndForgetsOnlyThatBackendsRecords() {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("kept", "alpha"));
      state.sandboxes().add(sandbox("lost", "alpha"));
      state.sandboxes().add(sandbox("other", "beta"));
      state.containers().add(container("lost-c", "lost", "alpha"));

      state.replaceBackend("alpha", List.of(sandbox("kept", "alpha"), sandbox("new", "alpha")),
          List.of(container("new-c", "new", "alpha")));

      assertThat(state.sandboxes().all()).extracting(SandboxRecord::id).containsExactlyInAnyOrder("kept", "new", "other");
      assertThat(state.containers().all()).extracting(ContainerRecord::id).containsExactly("new-c");
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.sandboxes().all()).extracting(SandboxRecord::id).containsExactlyInAnyOrder("kept", "new", "other");
      assertThat(state.containers().all()).extracting(ContainerRecord::id).containsExactly("new-c");
    }
  }

  @Test
  void backendStoresAreSeparateNamespacesThatPersist() {
    try (GatewayState state = GatewayState.open(dir)) {
      DurableStore slurm = state.backendStore("slurm");
      slurm.put("job/b", bytes("2"));
      slurm.put("job/a", bytes("1"));
      state.backendStore("cri").put("job/a", bytes("other"));
      slurm.remove("job/b");
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.backendStore("slurm").entries()).containsOnlyKeys("job/a");
      assertThat(state.backendStore("slurm").get("job/a")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("1")));
      assertThat(state.backendStore("cri").get("job/a")).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("other")));
      assertThat(state.backendStore("slurm").get("job/b")).isEmpty();
    }
  }

  @Test
  void putAllWritesEveryEntryOrNone() {
    try (GatewayState state = GatewayState.open(dir)) {
      DurableStore slurm = state.backendStore("slurm");
      slurm.putAll(Map.of("job/a", bytes("1"), "job/b", bytes("2")));
      Map<String, byte[]> withBadRow = new LinkedHashMap<>();
      withBadRow.put("job/c", bytes("3"));
      withBadRow.put("job/d", null); // the column is NOT NULL: the whole batch must roll back
      assertThatThrownBy(() -> slurm.putAll(withBadRow)).isInstanceOf(CrigateException.Unavailable.class);
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.backendStore("slurm").entries()).containsOnlyKeys("job/a", "job/b");
    }
  }

  /** A held-back change waits for the next transaction (anyone's) and then lands with it, in order. */
  @Test
  void storeChangesMadeWhileDeferringCommitWithTheNextTransaction() throws Exception {
    try (GatewayState state = GatewayState.open(dir)) {
      DurableStore store = state.backendStore("@plugin:policy");
      store.put("grant/a", bytes("old"));
      state.deferringStoreChanges(() -> {
        store.put("grant/a", bytes("new"));
        store.putAll(Map.of("grant/b", bytes("b")));
        store.put("grant/c", bytes("c"));
        store.remove("grant/c");
        return null;
      });
      assertThat(onDisk("@plugin:policy")).containsExactly(Map.entry("grant/a", "old"));

      state.containers().add(container("c1", "s1", "alpha"));

      assertThat(onDisk("@plugin:policy")).containsExactly(Map.entry("grant/a", "new"), Map.entry("grant/b", "b"));
    }
  }

  @Test
  void aHeldBackChangeIsReadBackAndNeverLandsAfterALaterWrite() throws Exception {
    try (GatewayState state = GatewayState.open(dir)) {
      DurableStore store = state.backendStore("@plugin:policy");
      String read = state.deferringStoreChanges(() -> {
        store.put("grant/a", bytes("held"));
        return new String(store.get("grant/a").orElseThrow(), StandardCharsets.UTF_8);
      });
      assertThat(read).isEqualTo("held");
      state.deferringStoreChanges(() -> {
        store.put("grant/a", bytes("earlier"));
        return null;
      });
      store.put("grant/a", bytes("later"));
      assertThat(onDisk("@plugin:policy")).containsExactly(Map.entry("grant/a", "later"));
    }
  }

  /**
   * Removals leave memory at once but wait for the next transaction to reach disk, so a lifecycle
   * pays two commits (the creations), not four; until then a crash leaves the records (reconciled
   * away at the next start, CriRoutingTest).
   */
  @Test
  void aRemovalIsForgottenAtOnceAndCommittedWithTheNextTransaction() throws Exception {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      state.containers().add(container("c1", "s1", "alpha"));
      state.sandboxes().add(sandbox("s2", "alpha"));
      state.containers().add(container("c2", "s2", "alpha"));

      state.containers().remove("c1");
      state.sandboxes().remove("s2");

      assertThat(state.containers().all()).as("memory").isEmpty();
      assertThat(state.sandboxes().all()).extracting(SandboxRecord::id).containsExactly("s1");
      assertThat(idsOnDisk("containers")).as("what a crash now would leave").containsExactly("c1", "c2");
      assertThat(idsOnDisk("sandboxes")).containsExactly("s1", "s2");

      state.sandboxes().add(sandbox("s3", "alpha"));

      assertThat(idsOnDisk("containers")).isEmpty();
      assertThat(idsOnDisk("sandboxes")).containsExactly("s1", "s3");
    }
  }

  @Test
  void aRolledBackTransactionKeepsTheDeferredRemovalsForTheNextOne() throws Exception {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      state.containers().add(container("c1", "s1", "alpha"));
      state.containers().remove("c1");
      Map<String, byte[]> badRow = new LinkedHashMap<>();
      badRow.put("k", null); // the column is NOT NULL: the transaction rolls back
      assertThatThrownBy(() -> state.backendStore("alpha").putAll(badRow)).isInstanceOf(CrigateException.Unavailable.class);
      assertThat(idsOnDisk("containers")).containsExactly("c1");

      state.sandboxes().add(sandbox("s2", "alpha"));

      assertThat(idsOnDisk("containers")).isEmpty();
      assertThat(idsOnDisk("sandboxes")).containsExactly("s1", "s2");
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.containers().all()).isEmpty();
    }
  }

  @Test
  void aRemovalHeldBackAtCloseIsCommitted() {
    try (GatewayState state = GatewayState.open(dir)) {
      state.sandboxes().add(sandbox("s1", "alpha"));
      state.sandboxes().remove("s1");
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.sandboxes().all()).isEmpty();
    }
  }

  @Test
  void closingCommitsWhatWasHeldBack() {
    try (GatewayState state = GatewayState.open(dir)) {
      state.deferringStoreChanges(() -> {
        state.backendStore("@plugin:policy").put("grant/a", bytes("held"));
        return null;
      });
    }
    try (GatewayState state = GatewayState.open(dir)) {
      assertThat(state.backendStore("@plugin:policy").get("grant/a")).isPresent();
    }
  }

  /** The ids another connection finds committed in an ownership table: what a crash would leave. */
  private List<String> idsOnDisk(String table) throws Exception {
    List<String> ids = new java.util.ArrayList<>();
    try (var connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(GatewayState.FILE_NAME));
        var statement = connection.createStatement();
        var rows = statement.executeQuery("SELECT id FROM " + table + " ORDER BY id")) {
      while (rows.next()) {
        ids.add(rows.getString(1));
      }
    }
    return ids;
  }

  /** What another connection finds committed in {@code backend}'s namespace: what a crash would leave. */
  private Map<String, String> onDisk(String backend) throws Exception {
    Map<String, String> found = new java.util.TreeMap<>();
    try (var connection = java.sql.DriverManager.getConnection("jdbc:sqlite:" + dir.resolve(GatewayState.FILE_NAME));
        var statement = connection.prepareStatement("SELECT key, value FROM backend_entries WHERE backend = ?")) {
      statement.setString(1, backend);
      try (var rows = statement.executeQuery()) {
        while (rows.next()) {
          found.put(rows.getString(1), new String(rows.getBytes(2), StandardCharsets.UTF_8));
        }
      }
    }
    return found;
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}

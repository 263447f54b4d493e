package io.crigate.core.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/** SQLite's library kept in the state directory: unpacked once per version, then only pointed at. */
class SqliteNativeLibraryTest {

  @TempDir
  Path stateDir;
  private String pathBefore;
  private String nameBefore;

  @BeforeEach
  void forgetThisProcessesChoice() {
    pathBefore = System.clearProperty(SqliteNativeLibrary.PATH_PROPERTY);
    nameBefore = System.clearProperty(SqliteNativeLibrary.NAME_PROPERTY);
  }

  @AfterEach
  void restoreIt() {
    restore(SqliteNativeLibrary.PATH_PROPERTY, pathBefore);
    restore(SqliteNativeLibrary.NAME_PROPERTY, nameBefore);
  }

  @Test
  void theFirstStartUnpacksTheJarsLibraryAndDropsOtherVersions() throws Exception {
    Path dir = stateDir.resolve("native");
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("sqlite-3.0.0.0-libsqlitejdbc.so"), "an older crigate's");

    SqliteNativeLibrary.useKeptCopy(dir);

    String name = "sqlite-" + SQLiteJDBCLoader.getVersion() + "-" + LibraryLoaderUtil.getNativeLibName();
    try (Stream<Path> files = Files.list(dir)) {
      assertThat(files.map(f -> f.getFileName().toString()).toList()).containsExactly(name);
    }
    assertThat(Files.readAllBytes(dir.resolve(name))).isEqualTo(jarsLibrary());
    assertThat(System.getProperty(SqliteNativeLibrary.PATH_PROPERTY)).isEqualTo(dir.toString());
    assertThat(System.getProperty(SqliteNativeLibrary.NAME_PROPERTY)).isEqualTo(name);
  }

  @Test
  void aLaterStartUsesTheKeptCopyWithoutWritingIt() throws Exception {
    Path dir = stateDir.resolve("native");
    SqliteNativeLibrary.useKeptCopy(dir);
    Path kept = dir.resolve(System.getProperty(SqliteNativeLibrary.NAME_PROPERTY));
    Files.setLastModifiedTime(kept, FileTime.fromMillis(0));
    System.clearProperty(SqliteNativeLibrary.PATH_PROPERTY); // as a new process

    SqliteNativeLibrary.useKeptCopy(dir);

    assertThat(Files.getLastModifiedTime(kept).toMillis()).isZero();
    assertThat(System.getProperty(SqliteNativeLibrary.PATH_PROPERTY)).isEqualTo(dir.toString());
  }

  @Test
  void aPathTheOperatorSetIsLeftAlone() {
    System.setProperty(SqliteNativeLibrary.PATH_PROPERTY, "/opt/sqlite");

    SqliteNativeLibrary.useKeptCopy(stateDir.resolve("native"));

    assertThat(System.getProperty(SqliteNativeLibrary.PATH_PROPERTY)).isEqualTo("/opt/sqlite");
    assertThat(stateDir.resolve("native")).doesNotExist();
  }

  @Test
  void aDirectoryItCannotWriteLeavesSqliteToItsOwnSearch() throws Exception {
    Path notADirectory = Files.writeString(stateDir.resolve("native"), "a file where the directory goes");

    SqliteNativeLibrary.useKeptCopy(notADirectory);

    assertThat(System.getProperty(SqliteNativeLibrary.PATH_PROPERTY)).isNull();
  }

  private static byte[] jarsLibrary() throws Exception {
    String resource = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
    try (InputStream in = SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
      return in.readAllBytes();
    }
  }

  private static void restore(String property, String value) {
    if (value == null) {
      System.clearProperty(property);
    } else {
      System.setProperty(property, value);
    }
  }
}

package io.crigate.core.state;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteJDBCLoader;
import org.sqlite.util.LibraryLoaderUtil;

/**
 * Keeps SQLite's native library in the state directory and points sqlite-jdbc at it. Left to itself,
 * sqlite-jdbc works out the platform on every start (it runs {@code uname}) and unpacks its 1 MB
 * library into {@code /tmp} under a fresh name, then compares it with the jar's copy: ~80 ms of each
 * start of {@code serve}, which a kubelet waits for after every restart (docs/benchmarks.md). The
 * first start unpacks it once, named by sqlite-jdbc's version, so an upgrade brings its own.
 *
 * <p>A library crigate cannot keep or load from here costs nothing but the time: sqlite-jdbc, given a
 * path it cannot load from, goes on to its own unpacking.
 */
final class SqliteNativeLibrary {

  private static final Logger LOG = LoggerFactory.getLogger(SqliteNativeLibrary.class);
  static final String PATH_PROPERTY = "org.sqlite.lib.path";
  static final String NAME_PROPERTY = "org.sqlite.lib.name";
  private static final String PREFIX = "sqlite-";

  private SqliteNativeLibrary() {}

  /**
   * Before the process's first SQLite connection: uses the copy under {@code directory}, unpacking
   * it first if this version has none. Does nothing when the path is already set (by the operator, or
   * by an earlier call: sqlite-jdbc loads its library once per process).
   */
  static void useKeptCopy(Path directory) {
    if (System.getProperty(PATH_PROPERTY) != null) {
      return;
    }
    String name = PREFIX + SQLiteJDBCLoader.getVersion() + "-" + LibraryLoaderUtil.getNativeLibName();
    Path kept = directory.resolve(name);
    try {
      if (!Files.isRegularFile(kept) && !unpack(directory, name)) {
        return;
      }
    } catch (IOException | UncheckedIOException e) {
      LOG.debug("SQLite's native library is unpacked by sqlite-jdbc: cannot keep it in {}: {}", directory, e.toString());
      return;
    }
    System.setProperty(PATH_PROPERTY, directory.toString());
    System.setProperty(NAME_PROPERTY, name);
  }

  /** Unpacks this platform's library as {@code name}, whole or not at all, and drops other versions'. */
  private static boolean unpack(Path directory, String name) throws IOException {
    String resource = LibraryLoaderUtil.getNativeLibResourcePath() + "/" + LibraryLoaderUtil.getNativeLibName();
    try (InputStream library = SQLiteJDBCLoader.class.getResourceAsStream(resource)) {
      if (library == null) {
        return false; // a platform sqlite-jdbc carries no library for: its own search decides
      }
      PrivateFiles.directory(directory);
      Path partial = Files.createTempFile(directory, name, ".partial");
      try {
        Files.copy(library, partial, StandardCopyOption.REPLACE_EXISTING);
        Files.move(partial, directory.resolve(name), StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(partial);
      }
    }
    try (DirectoryStream<Path> others = Files.newDirectoryStream(directory, PREFIX + "*")) {
      for (Path other : others) {
        if (!other.getFileName().toString().equals(name)) {
          Files.deleteIfExists(other);
        }
      }
    }
    return true;
  }
}

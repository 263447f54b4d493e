package io.crigate.core.state;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state directory holds every pod's config (environment included) and the key that seals
 * cluster passwords, so only crigate's own user may read it: directories 0700 and files 0600,
 * whatever the umask. Wider permissions found on an existing directory or file are tightened, with
 * a log line, so upgrading a node fixes what an older crigate left readable.
 */
public final class PrivateFiles {

  private static final Logger LOG = LoggerFactory.getLogger(PrivateFiles.class);
  static final Set<PosixFilePermission> DIRECTORY = PosixFilePermissions.fromString("rwx------");
  static final Set<PosixFilePermission> FILE = PosixFilePermissions.fromString("rw-------");

  private PrivateFiles() {}

  /** Creates {@code dir} (and missing parents, which keep the umask's mode) as 0700, or tightens it. */
  public static Path directory(Path dir) {
    try {
      if (dir.getParent() != null) {
        Files.createDirectories(dir.getParent());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create " + dir.getParent(), e);
    }
    return create(dir, DIRECTORY, Files::createDirectory);
  }

  /** Creates an empty 0600 {@code file} if it is missing, or tightens it. */
  public static Path file(Path file) {
    return create(file, FILE, Files::createFile);
  }

  private interface Creation {
    void create(Path path, FileAttribute<?> mode) throws IOException;
  }

  private static Path create(Path path, Set<PosixFilePermission> mode, Creation creation) {
    try {
      creation.create(path, PosixFilePermissions.asFileAttribute(mode));
      // The attribute is filtered by the umask: set the mode again so it is exact.
      Files.setPosixFilePermissions(path, mode);
    } catch (FileAlreadyExistsException exists) {
      tighten(path, mode);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create private " + path, e);
    }
    return path;
  }

  /** Makes {@code file} 0600 if it exists (SQLite's -wal and -shm come and go with the database). */
  static void tightenIfPresent(Path file) {
    try {
      tighten(file, FILE);
    } catch (UncheckedIOException e) {
      if (!(e.getCause() instanceof NoSuchFileException)) {
        throw e;
      }
    }
  }

  private static void tighten(Path path, Set<PosixFilePermission> wanted) {
    try {
      Set<PosixFilePermission> actual = Files.getPosixFilePermissions(path);
      if (!actual.equals(wanted)) {
        Files.setPosixFilePermissions(path, wanted);
        LOG.warn("{} was {}; set to {} because it holds pod configs and secrets", path,
            PosixFilePermissions.toString(actual), PosixFilePermissions.toString(wanted));
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot restrict permissions of " + path, e);
    }
  }
}

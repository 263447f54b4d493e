package io.crigate.core.server;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The path the CRI socket lives at. The socket is bound inside a private (0700) directory next to
 * the final path, given mode 0660 there, and only then renamed onto the final path, so there is no
 * moment at which anyone but the owner and group can connect.
 */
public final class SocketFile implements AutoCloseable {

  static final Set<PosixFilePermission> SOCKET_MODE = PosixFilePermissions.fromString("rw-rw----");
  private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");

  private final Path path;
  private final Path bindDir;

  private SocketFile(Path path, Path bindDir) {
    this.path = path;
    this.bindDir = bindDir;
  }

  /**
   * Makes the path ready to take a new socket: removes a stale socket nobody answers on, refuses a
   * live one or a file that is not a socket, and creates the private bind directory. Called before
   * anything else starts, so a second crigate gives up before touching backends or state.
   *
   * @throws io.crigate.spi.CrigateException.FailedPrecondition when a live process serves on the path
   */
  public static SocketFile prepare(Path path) {
    try {
      Files.createDirectories(path.getParent());
      removeIfStale(path);
      Path bindDir = path.resolveSibling(".crigate-bind." + ProcessHandle.current().pid());
      deleteRecursively(bindDir);
      Files.createDirectory(bindDir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
      return new SocketFile(path, bindDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare socket " + path, e);
    }
  }

  /** Where to bind; inside the private directory. */
  Path bindPath() {
    return bindDir.resolve("s");
  }

  /** Sets 0660 on the bound socket, then renames it onto the final path in one step. */
  void publish() {
    try {
      Files.setPosixFilePermissions(bindPath(), SOCKET_MODE);
      Files.move(bindPath(), path, StandardCopyOption.ATOMIC_MOVE);
      Files.delete(bindDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot publish socket " + path, e);
    }
  }

  Path path() {
    return path;
  }

  /** Removes the socket and the bind directory, whichever exist. */
  @Override
  public void close() {
    try {
      Files.deleteIfExists(path);
      deleteRecursively(bindDir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove socket " + path, e);
    }
  }

  private static void removeIfStale(Path path) throws IOException {
    if (!Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    BasicFileAttributes attributes = Files.readAttributes(path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
    if (!attributes.isOther()) {
      throw new CrigateException.FailedPrecondition(
          "%s exists and is not a socket; remove it or choose another --socket".formatted(path));
    }
    if (answers(path)) {
      throw new CrigateException.FailedPrecondition(
          "another process is serving on %s; stop it or choose another --socket".formatted(path));
    }
    Files.delete(path);
  }

  private static boolean answers(Path path) throws IOException {
    try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
      probe.connect(UnixDomainSocketAddress.of(path));
      return true;
    } catch (ConnectException refused) {
      return false;
    }
  }

  private static void deleteRecursively(Path dir) throws IOException {
    if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    try (Stream<Path> tree = Files.walk(dir)) {
      for (Path p : tree.sorted(Comparator.reverseOrder()).toList()) {
        Files.delete(p);
      }
    }
  }
}

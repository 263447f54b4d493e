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
import java.nio.file.attribute.GroupPrincipal;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipalNotFoundException;
import java.util.Comparator;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The path the CRI socket lives at. The socket is bound inside a private (0700) directory next to
 * the final path, given its group and mode 0660 there, and only then renamed onto the final path, so
 * there is no moment at which anyone but the owner and that group can connect.
 */
public final class SocketFile implements AutoCloseable {

  static final Set<PosixFilePermission> SOCKET_MODE = PosixFilePermissions.fromString("rw-rw----");
  private static final Set<PosixFilePermission> PRIVATE_DIR = PosixFilePermissions.fromString("rwx------");

  private final Path path;
  private final Path bindDir;
  private final Optional<GroupPrincipal> group;

  private SocketFile(Path path, Path bindDir, Optional<GroupPrincipal> group) {
    this.path = path;
    this.bindDir = bindDir;
    this.group = group;
  }

  /** As {@link #prepare(Path, Optional)}, keeping crigate's own group. */
  public static SocketFile prepare(Path path) {
    return prepare(path, Optional.empty());
  }

  /**
   * Makes the path ready to take a new socket: removes a stale socket nobody answers on, refuses a
   * live one or a file that is not a socket, and creates the private bind directory. Called before
   * anything else starts, so a second crigate gives up before touching backends or state.
   *
   * @param groupName the group given the socket ({@code socketGroup}), looked up now so a typo stops the start
   * @throws io.crigate.spi.CrigateException.FailedPrecondition when a live process serves on the path
   * @throws io.crigate.spi.CrigateException.InvalidArgument when the group does not exist
   */
  public static SocketFile prepare(Path path, Optional<String> groupName) {
    try {
      Optional<GroupPrincipal> group = groupName.isEmpty() ? Optional.empty() : Optional.of(group(path, groupName.get()));
      Files.createDirectories(path.getParent());
      removeIfStale(path);
      Path bindDir = path.resolveSibling(".crigate-bind." + ProcessHandle.current().pid());
      deleteRecursively(bindDir);
      Files.createDirectory(bindDir, PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
      return new SocketFile(path, bindDir, group);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare socket " + path, e);
    }
  }

  /** Where to bind; inside the private directory. */
  Path bindPath() {
    return bindDir.resolve("s");
  }

  /**
   * A socket path only crigate's own user can reach, for crigate's gRPC call server behind the
   * stream relay: a private (0700) directory of its own next to the final path, removed by
   * {@link #close()}.
   */
  Path callServerPath() {
    try {
      deleteRecursively(callServerDir());
      Files.createDirectory(callServerDir(), PosixFilePermissions.asFileAttribute(PRIVATE_DIR));
      return callServerDir().resolve("s");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the call server's socket next to " + path, e);
    }
  }

  private Path callServerDir() {
    return path.resolveSibling(".crigate-calls." + ProcessHandle.current().pid());
  }

  private static GroupPrincipal group(Path path, String name) throws IOException {
    try {
      return path.getFileSystem().getUserPrincipalLookupService().lookupPrincipalByGroupName(name);
    } catch (UserPrincipalNotFoundException e) {
      throw new CrigateException.InvalidArgument("socketGroup '%s' is not a group on this host".formatted(name));
    }
  }

  /** Sets the group and 0660 on the bound socket, then renames it onto the final path in one step. */
  void publish() {
    try {
      if (group.isPresent()) {
        Files.getFileAttributeView(bindPath(), PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
            .setGroup(group.get());
      }
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
      deleteRecursively(callServerDir());
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

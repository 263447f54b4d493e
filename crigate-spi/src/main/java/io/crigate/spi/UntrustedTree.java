package io.crigate.spi;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SecureDirectoryStream;
import java.nio.file.attribute.BasicFileAttributeView;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes a directory tree that others may write into while it is removed: a Slurm job's output
 * directory, an interLink pod's volumes. Their owner (the job, so the pod's author) can swap a
 * subdirectory for a symbolic link between a walk's look at it and its descent; a walk by path would
 * then follow the link and delete, as root, whatever it points to on crigate's node. Here every step
 * is relative to a directory already open ({@code openat}/{@code unlinkat} through
 * {@link SecureDirectoryStream}) and nothing is opened through a link, so a swapped-in link is
 * removed as the link it is.
 */
public final class UntrustedTree {

  private UntrustedTree() {}

  /**
   * Removes {@code dir} and everything in it; a tree already gone counts as removed. The directory
   * holding {@code dir} must not be writable by those the tree is not trusted from.
   *
   * @throws IOException when something cannot be removed, or the file system offers no secure
   *     directory streams (Linux's default one does)
   */
  public static void remove(Path dir) throws IOException {
    Path parent = dir.toAbsolutePath().getParent();
    try (DirectoryStream<Path> stream = Files.newDirectoryStream(parent)) {
      if (!(stream instanceof SecureDirectoryStream<Path> secure)) {
        throw new IOException("cannot remove %s safely: %s offers no secure directory streams".formatted(dir, parent));
      }
      remove(secure, dir.getFileName());
    } catch (NoSuchFileException gone) {
      // the tree, or the directory that held it, is already gone
    }
  }

  private static void remove(SecureDirectoryStream<Path> in, Path name) throws IOException {
    boolean directory;
    try {
      directory = in.getFileAttributeView(name, BasicFileAttributeView.class, LinkOption.NOFOLLOW_LINKS)
          .readAttributes().isDirectory();
    } catch (NoSuchFileException gone) {
      return;
    }
    if (!directory) {
      deleteFile(in, name);
      return;
    }
    List<Path> entries = new ArrayList<>();
    // NOFOLLOW_LINKS: a directory swapped for a link since its attributes were read fails to open
    try (SecureDirectoryStream<Path> children = in.newDirectoryStream(name, LinkOption.NOFOLLOW_LINKS)) {
      children.forEach(child -> entries.add(child.getFileName()));
      for (Path child : entries) {
        remove(children, child);
      }
    } catch (NoSuchFileException gone) {
      return;
    }
    try {
      in.deleteDirectory(name);
    } catch (NoSuchFileException gone) {
      // removed meanwhile
    }
  }

  private static void deleteFile(SecureDirectoryStream<Path> in, Path name) throws IOException {
    try {
      in.deleteFile(name);
    } catch (NoSuchFileException gone) {
      // removed meanwhile
    }
  }
}

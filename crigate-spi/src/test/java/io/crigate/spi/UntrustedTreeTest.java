package io.crigate.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UntrustedTreeTest {

  @TempDir Path tmp;

  @Test
  void aTreeGoesWholeAndLinksInItAreRemovedAsLinksLeavingTheirTargets() throws Exception {
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    Path canary = Files.writeString(outside.resolve("canary"), "keep me");
    Path tree = Files.createDirectories(tmp.resolve("tree/a/b"));
    Files.writeString(tree.resolve("file"), "x");
    Files.createSymbolicLink(tmp.resolve("tree/a/to-dir"), outside);
    Files.createSymbolicLink(tmp.resolve("tree/to-file"), canary);

    UntrustedTree.remove(tmp.resolve("tree"));

    assertThat(tmp.resolve("tree")).doesNotExist();
    assertThat(canary).hasContent("keep me");
  }

  @Test
  void aTreeAlreadyGoneCountsAsRemoved() throws Exception {
    UntrustedTree.remove(tmp.resolve("never-made"));
    UntrustedTree.remove(tmp.resolve("never-made/below"));
  }

  /**
   * The tree's owner waits until the removal is inside its subdirectory, then moves that directory
   * aside and puts a link to a directory outside in its place, whose files have the same names.
   * A walk by path went on deleting "sub/<name>" through the link and emptied the outside
   * directory; here each deletion is relative to the directory already open, so the outside files
   * stay. A removal may fail when it meets the link where a directory was; the next attempt
   * finishes it, as the kubelet's retry would.
   */
  @Test
  void aDirectorySwappedForALinkDuringTheRemovalNeverLeadsItOutside() throws Exception {
    int files = 1000;
    Path outside = Files.createDirectories(tmp.resolve("outside"));
    for (int i = 0; i < files; i++) {
      Files.writeString(outside.resolve("f-" + i), "keep me");
    }
    for (int round = 0; round < 10; round++) {
      Path tree = tmp.resolve("tree-" + round);
      Path sub = Files.createDirectories(tree.resolve("sub"));
      for (int i = 0; i < files; i++) {
        Files.writeString(sub.resolve("f-" + i), "job output");
      }
      FileTime untouched = Files.getLastModifiedTime(sub);
      Thread swapper = Thread.ofPlatform().start(() -> swapOnceInside(sub, tree.resolve("aside"), outside, untouched));
      try {
        while (Files.exists(tree, LinkOption.NOFOLLOW_LINKS)) {
          try {
            UntrustedTree.remove(tree);
          } catch (IOException swapSeen) {
            // the removal met the link where it had seen a directory: try again, as the kubelet retries
          }
        }
      } finally {
        swapper.join();
      }
      try (var kept = Files.list(outside)) {
        assertThat(kept.count()).as("round %d: files outside the tree", round).isEqualTo(files);
      }
    }
  }

  /** The attack: once the removal has deleted in {@code sub} (its mtime moves), sub becomes a link to {@code outside}. */
  private static void swapOnceInside(Path sub, Path aside, Path outside, FileTime untouched) {
    try {
      while (Files.getLastModifiedTime(sub, LinkOption.NOFOLLOW_LINKS).equals(untouched)) {
        Thread.onSpinWait();
      }
      Files.move(sub, aside, StandardCopyOption.ATOMIC_MOVE);
      Files.createSymbolicLink(sub, outside);
    } catch (IOException raced) {
      // the removal got there first (sub gone): nothing left to attack
    }
  }
}

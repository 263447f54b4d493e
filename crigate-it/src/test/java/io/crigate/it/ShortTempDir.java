package io.crigate.it;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.stream.Stream;

/** A test's directory right under /tmp: short, since it may hold a unix socket, whose path may have 107 bytes. */
final class ShortTempDir {

  private ShortTempDir() {}

  static Path create(String prefix) {
    try {
      return Files.createTempDirectory(Path.of("/tmp"), prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Deletes {@code dir} and everything in it, as far as it can. */
  static void delete(Path dir) throws IOException {
    try (Stream<Path> files = Files.walk(dir)) {
      files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
    }
  }
}

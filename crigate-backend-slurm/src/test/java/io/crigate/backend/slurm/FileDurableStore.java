package io.crigate.backend.slurm;

import io.crigate.spi.DurableStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HexFormat;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * A real, crash-safe {@link DurableStore} for tests: one file per key, written to a temporary file
 * and atomically renamed into place, so a second backend instance sees exactly what the first stored.
 */
final class FileDurableStore implements DurableStore {

  private final Path dir;

  FileDurableStore(Path dir) {
    this.dir = dir;
    try {
      Files.createDirectories(dir);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Path file(String key) {
    return dir.resolve(HexFormat.of().formatHex(key.getBytes(StandardCharsets.UTF_8)));
  }

  @Override
  public synchronized void put(String key, byte[] value) {
    try {
      Path tmp = Files.createTempFile(dir, ".put", ".tmp");
      Files.write(tmp, value);
      Files.move(tmp, file(key), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized Optional<byte[]> get(String key) {
    try {
      Path file = file(key);
      return Files.exists(file) ? Optional.of(Files.readAllBytes(file)) : Optional.empty();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized void remove(String key) {
    try {
      Files.deleteIfExists(file(key));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Override
  public synchronized Map<String, byte[]> entries() {
    Map<String, byte[]> all = new TreeMap<>();
    try (Stream<Path> files = Files.list(dir)) {
      for (Path file : files.filter(f -> !f.getFileName().toString().startsWith(".")).toList()) {
        String key = new String(HexFormat.of().parseHex(file.getFileName().toString()), StandardCharsets.UTF_8);
        all.put(key, Files.readAllBytes(file));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return all;
  }
}

package io.crigate.topology;

import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.FileSystemAlreadyExistsException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

/** The checked-in sysfs trees (scripts/topology/make-sysfs-fixtures.py). */
public final class Fixtures {

  private Fixtures() {}

  public static Path root(String name) {
    try {
      URI uri = Fixtures.class.getResource("/sysfs/" + name).toURI();
      if (uri.getScheme().equals("jar")) {
        // Other modules' tests read the fixtures out of this module's test jar.
        try {
          FileSystems.newFileSystem(uri, Map.of());
        } catch (FileSystemAlreadyExistsException alreadyOpen) {
          // opened by an earlier call
        }
      }
      return Path.of(uri);
    } catch (URISyntaxException | IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * A copy of fixture {@code name} at {@code to} on the default file system, for code that takes its
   * sysfs root as a path string (a policy's {@code sysfsRoot}) rather than as a {@link Path}.
   */
  public static Path copyTo(String name, Path to) throws IOException {
    Path from = root(name);
    try (var paths = Files.walk(from)) {
      for (Path p : paths.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else {
          Files.copy(p, target);
        }
      }
    }
    return to;
  }

  public static CpuTopology topology(String name) {
    return Sysfs.discover(root(name));
  }
}

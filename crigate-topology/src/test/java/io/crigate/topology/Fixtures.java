package io.crigate.topology;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** The checked-in sysfs trees (scripts/topology/make-sysfs-fixtures.py). */
public final class Fixtures {

  private Fixtures() {}

  public static Path root(String name) {
    try {
      return Path.of(Fixtures.class.getResource("/sysfs/" + name).toURI());
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  public static CpuTopology topology(String name) {
    return Sysfs.discover(root(name));
  }
}

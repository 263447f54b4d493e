package io.crigate.cli;

import picocli.CommandLine.IVersionProvider;

/** Reports the version Maven wrote into the jar manifest. */
public final class CrigateVersion implements IVersionProvider {

  /** The version string, or "dev" when running from classes rather than the built jar. */
  public static String current() {
    String version = Main.class.getPackage().getImplementationVersion();
    return version == null ? "dev" : version;
  }

  @Override
  public String[] getVersion() {
    return new String[] {"crigate " + current()};
  }
}

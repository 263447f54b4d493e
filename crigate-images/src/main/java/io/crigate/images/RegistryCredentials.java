package io.crigate.images;

/**
 * A user name and password (or token) for one registry. {@link #toString()} never shows the
 * secret, so a record printed by accident leaks nothing.
 */
public record RegistryCredentials(String username, String password) {

  @Override
  public String toString() {
    return "RegistryCredentials[username=" + username + ", password=<redacted>]";
  }
}

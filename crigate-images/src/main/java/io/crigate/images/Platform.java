package io.crigate.images;

import io.crigate.spi.CrigateException;

/**
 * The platform an image index is resolved to, as in {@code linux/amd64} or {@code linux/arm64/v8}.
 *
 * @param variant CPU variant, or empty when any variant matches
 */
public record Platform(String os, String architecture, String variant) {

  public static final Platform LINUX_AMD64 = new Platform("linux", "amd64", "");

  public static Platform parse(String text) {
    String[] parts = text.split("/", -1);
    if (parts.length < 2 || parts.length > 3 || parts[0].isEmpty() || parts[1].isEmpty()) {
      throw new CrigateException.InvalidArgument("platform %s: expected os/arch[/variant]".formatted(text));
    }
    return new Platform(parts[0], parts[1], parts.length == 3 ? parts[2] : "");
  }

  boolean matches(String os, String architecture, String variant) {
    return this.os.equals(os)
        && this.architecture.equals(architecture)
        && (this.variant.isEmpty() || this.variant.equals(variant));
  }

  @Override
  public String toString() {
    return os + "/" + architecture + (variant.isEmpty() ? "" : "/" + variant);
  }
}

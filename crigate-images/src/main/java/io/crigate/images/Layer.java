package io.crigate.images;

import io.crigate.spi.CrigateException;
import java.util.regex.Pattern;

/**
 * One image layer as a registry describes it.
 *
 * @param digest content digest, {@code sha256:<64 lowercase hex>}
 * @param size compressed size in bytes, as the manifest states it (what a pull transfers)
 */
public record Layer(String digest, long size) {

  private static final Pattern SHA256 = Pattern.compile("sha256:[0-9a-f]{64}");

  public Layer {
    requireDigest(digest);
    if (size < 0) {
      throw new CrigateException.InvalidArgument("layer %s has negative size %d".formatted(digest, size));
    }
  }

  /** Checks the digest form shared by layers, manifests and published inventories. */
  public static String requireDigest(String digest) {
    if (digest == null || !SHA256.matcher(digest).matches()) {
      throw new CrigateException.InvalidArgument("not a sha256 digest: " + digest);
    }
    return digest;
  }
}

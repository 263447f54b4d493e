package io.crigate.images;

import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;

/**
 * One image layer as a registry describes it.
 *
 * @param digest content digest, {@code sha256:<64 lowercase hex>}
 * @param size compressed size in bytes, as the manifest states it (what a pull transfers)
 */
public record Layer(String digest, long size) {

  public Layer {
    requireDigest(digest);
    if (size < 0) {
      throw new CrigateException.InvalidArgument("layer %s has negative size %d".formatted(digest, size));
    }
  }

  /** Checks the digest form shared by layers, manifests and published inventories. */
  public static String requireDigest(String digest) {
    return ImageRef.requireDigest(digest);
  }
}

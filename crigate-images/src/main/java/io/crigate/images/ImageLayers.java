package io.crigate.images;

import java.util.List;

/**
 * The layers of one image, resolved for one platform.
 *
 * @param reference the reference it was looked up by, e.g. {@code 127.0.0.1:5000/a:1}
 * @param digest digest of the platform manifest (not of an index that pointed to it)
 * @param layers layers in manifest order, base first
 */
public record ImageLayers(String reference, String digest, List<Layer> layers) {

  public ImageLayers {
    Layer.requireDigest(digest);
    layers = List.copyOf(layers);
  }

  /** Sum of compressed layer sizes: what pulling the image onto an empty node transfers. */
  public long totalSize() {
    return layers.stream().mapToLong(Layer::size).sum();
  }
}

package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import java.util.Optional;
import java.util.function.Function;

/**
 * Where the extender finds the layers of a pod's images. {@link #layers} may ask a registry and wait
 * on the network; {@link #layersIfKnown} never waits. The HTTP server scores a pod on its event
 * loop when every image is known, and hands only the rest to a thread that may wait, so a slow
 * registry holds the pods that need it and nothing else on the port.
 */
public interface ImageLayerSource {

  /**
   * @throws io.crigate.spi.CrigateException.PermissionDenied the image's registry is not allowed;
   *     any other runtime exception when its layers cannot be told
   */
  ImageLayers layers(String image);

  /** The layers if known without waiting, else empty; refuses what {@link #layers} refuses. */
  Optional<ImageLayers> layersIfKnown(String image);

  /** {@code layers} may wait; {@code layersIfKnown} answers what it can without waiting. */
  static ImageLayerSource of(Function<String, ImageLayers> layers, Function<String, Optional<ImageLayers>> layersIfKnown) {
    return new ImageLayerSource() {
      @Override
      public ImageLayers layers(String image) {
        return layers.apply(image);
      }

      @Override
      public Optional<ImageLayers> layersIfKnown(String image) {
        return layersIfKnown.apply(image);
      }
    };
  }

  /** A source that never waits, e.g. a map in memory: every lookup is an answer without waiting. */
  static ImageLayerSource inMemory(Function<String, ImageLayers> layers) {
    return of(layers, image -> Optional.ofNullable(layers.apply(image)));
  }
}

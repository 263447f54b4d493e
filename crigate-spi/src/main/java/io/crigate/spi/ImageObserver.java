package io.crigate.spi;

import io.crigate.api.cri.v1.ImageStatusResponse;
import io.crigate.api.cri.v1.ListImagesResponse;

/**
 * Sees the image traffic that passes through the gateway and may enrich image answers, e.g. with
 * per-layer annotations. Called on the CRI hot path: implementations must neither block nor throw.
 */
public interface ImageObserver extends AutoCloseable {

  /** Observes nothing and changes nothing; the gateway's behaviour without image extensions. */
  ImageObserver NONE = new ImageObserver() {};

  /** The merged, filtered ListImages answer on its way to the caller. */
  default ListImagesResponse listImages(ListImagesResponse response) {
    return response;
  }

  /** An ImageStatus answer on its way to the caller. */
  default ImageStatusResponse imageStatus(ImageStatusResponse response) {
    return response;
  }

  /** A pull of {@code image} was forwarded to a backend. */
  default void pullStarted(String image) {}

  /** The pull of {@code image} ended, successfully or not. */
  default void pullFinished(String image) {}

  /** {@code image} was removed from a backend. */
  default void imageRemoved(String image) {}

  @Override
  default void close() {}

  /**
   * Creates an observer once the gateway can list the node's images. {@code nodeImages} answers
   * with every backend's images merged, as the kubelet sees them.
   */
  @FunctionalInterface
  interface Factory {
    ImageObserver create(ImageBackend nodeImages);
  }
}

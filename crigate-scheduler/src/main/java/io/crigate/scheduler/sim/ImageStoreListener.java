package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;

/**
 * Told, in order, what a simulated node's image store does, so that a harness can carry out the same
 * pulls and garbage-collection removals on a real node (crigate-bench's LayerPlacementExperiment).
 */
public interface ImageStoreListener {

  ImageStoreListener NONE = new ImageStoreListener() {};

  /** The node pulled {@code image} (only the layers it lacked). */
  default void pulled(ImageLayers image) {}

  /** Image GC removed {@code reference} (and the layers no remaining image uses). */
  default void removed(String reference) {}
}

package io.crigate.scheduler;

/** The one question {@link LayerLocality} asks about a node: is this layer there, or arriving? */
@FunctionalInterface
public interface NodeLayers {

  /** True when the layer is present on the node or being pulled there. */
  boolean holds(String digest);
}

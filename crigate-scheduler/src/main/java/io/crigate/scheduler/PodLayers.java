package io.crigate.scheduler;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The distinct layers a pod needs across its init and regular containers. A layer shared by two of
 * the pod's images is pulled once, so it is counted once.
 */
public record PodLayers(List<Layer> layers, long totalBytes) {

  public PodLayers {
    layers = List.copyOf(layers);
  }

  public static PodLayers of(Collection<ImageLayers> images) {
    Map<String, Layer> distinct = new LinkedHashMap<>();
    for (ImageLayers image : images) {
      image.layers().forEach(layer -> distinct.putIfAbsent(layer.digest(), layer));
    }
    List<Layer> layers = List.copyOf(distinct.values());
    return new PodLayers(layers, layers.stream().mapToLong(Layer::size).sum());
  }
}

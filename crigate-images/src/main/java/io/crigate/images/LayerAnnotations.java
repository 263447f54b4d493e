package io.crigate.images;

import io.crigate.api.cri.v1.Image;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The CRI image annotations that carry layer sizes to the kubelet and scheduler: one entry
 * {@code imageLayer.sha256:<hex>} = {@code <compressed size in bytes>} per layer, the form the
 * layer-locality design (issue 4) fixed.
 */
public final class LayerAnnotations {

  public static final String PREFIX = "imageLayer.";

  private LayerAnnotations() {}

  /** The image with one annotation per layer added; annotations it already has win. */
  public static Image annotate(Image image, ImageLayers layers) {
    var spec = image.getSpec().toBuilder();
    for (Layer layer : layers.layers()) {
      String key = PREFIX + layer.digest();
      if (!spec.containsAnnotations(key)) {
        spec.putAnnotations(key, Long.toString(layer.size()));
      }
    }
    return image.toBuilder().setSpec(spec).build();
  }

  /** Layers named by annotations in that form; entries that do not parse are skipped. */
  public static List<Layer> parse(Map<String, String> annotations) {
    var layers = new ArrayList<Layer>();
    annotations.forEach((key, value) -> {
      if (key.startsWith(PREFIX)) {
        try {
          layers.add(new Layer(key.substring(PREFIX.length()), Long.parseLong(value)));
        } catch (RuntimeException malformed) {
          // another writer's annotation in a form we do not know: not ours to interpret
        }
      }
    });
    return layers;
  }

  static boolean present(Image image) {
    return image.getSpec().getAnnotationsMap().keySet().stream().anyMatch(key -> key.startsWith(PREFIX));
  }
}

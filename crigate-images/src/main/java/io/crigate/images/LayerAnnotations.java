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
final class LayerAnnotations {

  public static final String PREFIX = "imageLayer.";

  private LayerAnnotations() {}

  /** The image with one annotation per layer added; annotations it already has win. */
  public static Image annotate(Image image, ImageLayers layers) {
    return annotate(image, of(layers));
  }

  static Image annotate(Image image, Map<String, String> annotations) {
    var spec = image.getSpec().toBuilder();
    annotations.forEach((key, value) -> {
      if (!spec.containsAnnotations(key)) {
        spec.putAnnotations(key, value);
      }
    });
    return image.toBuilder().setSpec(spec).build();
  }

  /** One annotation per layer, e.g. {@code imageLayer.sha256:0c6b…} = {@code 54917164}. */
  public static Map<String, String> of(ImageLayers layers) {
    var annotations = new java.util.LinkedHashMap<String, String>();
    layers.layers().forEach(layer -> annotations.put(PREFIX + layer.digest(), Long.toString(layer.size())));
    return java.util.Collections.unmodifiableMap(annotations);
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

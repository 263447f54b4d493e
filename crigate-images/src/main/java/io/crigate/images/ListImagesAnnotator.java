package io.crigate.images;

import io.crigate.api.cri.v1.Image;
import io.crigate.api.cri.v1.ListImagesResponse;
import java.util.function.UnaryOperator;

/**
 * Adds {@code imageLayer.sha256:…} annotations to every image of a ListImages answer whose layers
 * are already known, and starts lookups for the rest (they appear on a later call). Never fails
 * and never waits for a registry.
 */
final class ListImagesAnnotator implements UnaryOperator<ListImagesResponse> {

  private final ImageLayerResolver resolver;

  public ListImagesAnnotator(ImageLayerResolver resolver) {
    this.resolver = resolver;
  }

  @Override
  public ListImagesResponse apply(ListImagesResponse response) {
    var annotated = response.toBuilder();
    for (int i = 0; i < response.getImagesCount(); i++) {
      annotated.setImages(i, annotate(resolver, response.getImages(i)));
    }
    return annotated.build();
  }

  static Image annotate(ImageLayerResolver resolver, Image image) {
    if (LayerAnnotations.present(image)) {
      return image; // the runtime annotated it itself
    }
    return resolver.annotations(image).map(annotations -> LayerAnnotations.annotate(image, annotations)).orElse(image);
  }
}

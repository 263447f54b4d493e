package io.crigate.images;

import io.crigate.api.cri.v1.ImageStatusResponse;
import java.util.function.UnaryOperator;

/** {@link ListImagesAnnotator} for the single image of an ImageStatus answer. */
final class ImageStatusAnnotator implements UnaryOperator<ImageStatusResponse> {

  private final ImageLayerResolver resolver;

  public ImageStatusAnnotator(ImageLayerResolver resolver) {
    this.resolver = resolver;
  }

  @Override
  public ImageStatusResponse apply(ImageStatusResponse response) {
    if (!response.hasImage()) {
      return response; // the image is absent: nothing to annotate
    }
    return response.toBuilder().setImage(ListImagesAnnotator.annotate(resolver, response.getImage())).build();
  }
}

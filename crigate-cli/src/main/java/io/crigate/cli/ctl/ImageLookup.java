package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ImageStatusRequest;
import io.crigate.api.cri.v1.ImageStatusResponse;
import io.crigate.spi.CrigateException.NotFound;

/** Finds an image by name, reference or id; CRI answers an empty status for a missing image. */
final class ImageLookup {

  private ImageLookup() {}

  static ImageStatusResponse status(CriSession cri, String image, boolean verbose) {
    ImageStatusResponse status =
        cri.images()
            .imageStatus(
                ImageStatusRequest.newBuilder()
                    .setImage(ImageSpec.newBuilder().setImage(image))
                    .setVerbose(verbose)
                    .build());
    if (!status.hasImage()) {
      throw new NotFound("no image %s".formatted(image));
    }
    return status;
  }
}

package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.ImageObserver;
import java.util.List;

/**
 * The ImageService answers as the caller receives them: {@link ImageRouting}'s, passed through the
 * configured {@link ImageObserver}, which learns of pulls and removals and may annotate images.
 */
final class ObservedImages {

  private final ImageRouting routing;
  private final ImageObserver observer;

  ObservedImages(ImageRouting routing, ImageObserver observer) {
    this.routing = routing;
    this.observer = observer;
  }

  List<Image> images(ImageFilter filter) {
    return observer.listImages(routing.listImages(ListImagesRequest.newBuilder().setFilter(filter).build()))
        .getImagesList();
  }

  ImageStatusResponse imageStatus(ImageStatusRequest request) {
    return observer.imageStatus(routing.imageStatus(request));
  }

  /**
   * The observer hears of a valid pull before the backend starts it, so the node counts its layers
   * as arriving, and of its end whether it succeeded or not.
   */
  PullImageResponse pullImage(PullImageRequest request) {
    ImageRouting.RoutedPull pull = routing.routePull(request);
    String image = request.getImage().getImage();
    observer.pullStarted(image);
    try {
      return pull.backend().pullImage(pull.request());
    } finally {
      observer.pullFinished(image);
    }
  }

  RemoveImageResponse removeImage(RemoveImageRequest request) {
    RemoveImageResponse removed = routing.removeImage(request);
    observer.imageRemoved(request.getImage().getImage());
    return removed;
  }

  ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request) {
    return routing.imageFsInfo(request);
  }
}

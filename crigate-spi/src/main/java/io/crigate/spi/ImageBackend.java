package io.crigate.spi;

import io.crigate.api.cri.v1.*;

/**
 * The CRI ImageService as one backend sees it. Blocking, like {@link RuntimeBackend}; core merges
 * ListImages and ImageFsInfo across backends and routes the rest by {@code ImageSpec.runtime_handler}.
 */
public interface ImageBackend {

  ListImagesResponse listImages(ListImagesRequest request);

  ImageStatusResponse imageStatus(ImageStatusRequest request);

  PullImageResponse pullImage(PullImageRequest request);

  RemoveImageResponse removeImage(RemoveImageRequest request);

  ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request);
}

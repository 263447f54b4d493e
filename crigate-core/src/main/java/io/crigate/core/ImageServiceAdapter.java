package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.grpc.stub.StreamObserver;

/** The CRI ImageService, handing every RPC to {@link ObservedImages}. */
final class ImageServiceAdapter extends ImageServiceGrpc.ImageServiceImplBase {

  private final ObservedImages images;

  ImageServiceAdapter(ObservedImages images) {
    this.images = images;
  }

  @Override
  public void listImages(ListImagesRequest request, StreamObserver<ListImagesResponse> observer) {
    Replies.unary(observer, ListImagesResponse.newBuilder().addAllImages(images.images(request.getFilter())).build());
  }

  @Override
  public void streamImages(StreamImagesRequest request, StreamObserver<StreamImagesResponse> observer) {
    Replies.chunked(observer, images.images(request.getFilter()), chunk -> StreamImagesResponse.newBuilder().addAllImages(chunk).build());
  }

  @Override
  public void imageStatus(ImageStatusRequest request, StreamObserver<ImageStatusResponse> observer) {
    Replies.unary(observer, images.imageStatus(request));
  }

  @Override
  public void pullImage(PullImageRequest request, StreamObserver<PullImageResponse> observer) {
    Replies.unary(observer, images.pullImage(request));
  }

  @Override
  public void removeImage(RemoveImageRequest request, StreamObserver<RemoveImageResponse> observer) {
    Replies.unary(observer, images.removeImage(request));
  }

  @Override
  public void imageFsInfo(ImageFsInfoRequest request, StreamObserver<ImageFsInfoResponse> observer) {
    Replies.unary(observer, images.imageFsInfo(request));
  }
}

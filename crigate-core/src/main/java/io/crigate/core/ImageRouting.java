package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.crigate.spi.ImageBackend;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ImageService. Calls about one image go to the backend bound to {@code ImageSpec.runtime_handler}
 * (KEP-4216), which is the default backend when the kubelet sends no handler. Listings merge every
 * backend's images, one entry per image id. This is the node's image store as the kubelet sees
 * it, before any {@link io.crigate.spi.ImageObserver} enriches the answers.
 */
final class ImageRouting implements ImageBackend {

  private final BackendRoutes routes;
  private final BackendSweep sweep;

  ImageRouting(BackendRoutes routes, BackendSweep sweep) {
    this.routes = routes;
    this.sweep = sweep;
  }

  @Override
  public PullImageResponse pullImage(PullImageRequest request) {
    RoutedPull pull = routePull(request);
    return pull.backend().pullImage(pull.request());
  }

  /** A validated pull and the backend it goes to, with the handler rewritten for that backend. */
  record RoutedPull(Backend backend, PullImageRequest request) {}

  RoutedPull routePull(PullImageRequest request) {
    Routed routed = route(request.hasImage(), request.getImage());
    return new RoutedPull(routed.backend(), request.toBuilder().setImage(routed.spec()).build());
  }

  @Override
  public ImageStatusResponse imageStatus(ImageStatusRequest request) {
    Routed routed = route(request.hasImage(), request.getImage());
    return routed.backend().imageStatus(request.toBuilder().setImage(routed.spec()).build());
  }

  @Override
  public RemoveImageResponse removeImage(RemoveImageRequest request) {
    Routed routed = route(request.hasImage(), request.getImage());
    return routed.backend().removeImage(request.toBuilder().setImage(routed.spec()).build());
  }

  @Override
  public ListImagesResponse listImages(ListImagesRequest request) {
    return ListImagesResponse.newBuilder().addAllImages(images(request.getFilter())).build();
  }

  /** Every backend's images; an image two backends hold appears once, with the union of its names. */
  List<Image> images(ImageFilter filter) {
    ListImagesRequest request = ListImagesRequest.newBuilder().setFilter(filter).build();
    Map<String, Image> byId = new LinkedHashMap<>();
    for (Image image : sweep.collect("ListImages", backend -> backend.listImages(request).getImagesList())) {
      byId.merge(image.getId(), image, ImageRouting::sameImage);
    }
    return byId.values().stream().filter(ListFilters.images(filter)).toList();
  }

  /** Every backend's filesystems, default backend first (the kubelet reads the first image filesystem). */
  @Override
  public ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request) {
    List<ImageFsInfoResponse> parts = sweep.collect("ImageFsInfo", backend -> List.of(backend.imageFsInfo(request)));
    List<FilesystemUsage> images = new ArrayList<>();
    List<FilesystemUsage> containers = new ArrayList<>();
    parts.forEach(part -> {
      images.addAll(part.getImageFilesystemsList());
      containers.addAll(part.getContainerFilesystemsList());
    });
    return ImageFsInfoResponse.newBuilder()
        .addAllImageFilesystems(distinctMountpoints(images))
        .addAllContainerFilesystems(distinctMountpoints(containers))
        .build();
  }

  private record Routed(Backend backend, ImageSpec spec) {}

  private Routed route(boolean present, ImageSpec spec) {
    Require.present(present, "image");
    Require.id("image.image", spec.getImage());
    BackendRoutes.Route route = routes.forHandler(spec.getRuntimeHandler());
    return new Routed(route.backend(), spec.toBuilder().setRuntimeHandler(route.binding().backendHandler()).build());
  }

  private static Image sameImage(Image first, Image second) {
    Set<String> tags = new LinkedHashSet<>(first.getRepoTagsList());
    tags.addAll(second.getRepoTagsList());
    Set<String> digests = new LinkedHashSet<>(first.getRepoDigestsList());
    digests.addAll(second.getRepoDigestsList());
    return first.toBuilder()
        .clearRepoTags().addAllRepoTags(tags)
        .clearRepoDigests().addAllRepoDigests(digests)
        .setPinned(first.getPinned() || second.getPinned())
        .build();
  }

  /** Two backends on one host may share a filesystem; counting it twice would double its usage. */
  private static List<FilesystemUsage> distinctMountpoints(List<FilesystemUsage> usages) {
    Map<String, FilesystemUsage> byMountpoint = new LinkedHashMap<>();
    usages.forEach(usage -> byMountpoint.putIfAbsent(usage.getFsId().getMountpoint(), usage));
    return List.copyOf(byMountpoint.values());
  }
}

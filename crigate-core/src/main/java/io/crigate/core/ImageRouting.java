package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.core.state.SandboxStore;
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
 * (KEP-4216). Without one, a pull that names its pod ({@code sandbox_config}) goes to the backend
 * running that pod, since a kubelet without the RuntimeClassInImageCriApi gate pulls that way and
 * the container must find its image where it will run; anything else goes to the default backend.
 * Listings merge every
 * backend's images, one entry per image id. This is the node's image store as the kubelet sees
 * it, before any {@link io.crigate.spi.ImageObserver} enriches the answers.
 */
final class ImageRouting implements ImageBackend {

  private final BackendRoutes routes;
  private final BackendSweep sweep;
  private final SandboxStore sandboxes;

  ImageRouting(BackendRoutes routes, BackendSweep sweep, SandboxStore sandboxes) {
    this.routes = routes;
    this.sweep = sweep;
    this.sandboxes = sandboxes;
  }

  @Override
  public PullImageResponse pullImage(PullImageRequest request) {
    RoutedPull pull = routePull(request);
    return pull.backend().pullImage(pull.request());
  }

  /** A validated pull and the backend it goes to, with the handler rewritten for that backend. */
  record RoutedPull(Backend backend, PullImageRequest request) {}

  RoutedPull routePull(PullImageRequest request) {
    Require.present(request.hasImage(), "image");
    Require.imageReference("image.image", request.getImage().getImage());
    Routed routed = route(request.hasImage(), withPodHandler(request));
    return new RoutedPull(routed.backend(), request.toBuilder().setImage(routed.spec()).build());
  }

  /** The pull's image spec, given the handler of the pod it names when it has none of its own. */
  private ImageSpec withPodHandler(PullImageRequest request) {
    ImageSpec spec = request.getImage();
    if (!spec.getRuntimeHandler().isEmpty() || !request.hasSandboxConfig()) {
      return spec;
    }
    return sandboxes.newestOfPod(request.getSandboxConfig().getMetadata().getUid())
        .map(pod -> spec.toBuilder().setRuntimeHandler(pod.handler()).build())
        .orElse(spec);
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

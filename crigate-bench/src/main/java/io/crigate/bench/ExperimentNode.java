package io.crigate.bench;

import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ListImagesRequest;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.RemoveImageRequest;
import io.crigate.cli.ctl.CriClient;
import io.crigate.images.ImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.scheduler.sim.ImageStoreListener;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * One containerd instance acting as a simulated node's image store: carries out its pulls (CRI
 * PullImage) and its GC removals (CRI RemoveImage), and after each reads back which layers
 * containerd holds (ListImages, resolved to layers through the registry) to count the bytes of
 * layers it newly holds.
 */
final class ExperimentNode implements ImageStoreListener, AutoCloseable {

  private static final Duration PULL_DEADLINE = Duration.ofMinutes(2);
  private static final Duration CALL_DEADLINE = Duration.ofSeconds(30);

  private final CriClient cri;
  private final RegistryClient registry;
  /** Layers of the images containerd lists: digest to size. */
  private Map<String, Long> layers;
  long newLayerBytes;
  int removals;

  ExperimentNode(String endpoint, RegistryClient registry) {
    this.cri = CriClient.connect(endpoint);
    this.registry = registry;
    this.layers = inventory();
  }

  @Override
  public void pulled(ImageLayers image) {
    cri.images(PULL_DEADLINE).pullImage(
        PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image.reference())).build());
    Map<String, Long> before = layers;
    layers = inventory();
    layers.forEach((digest, size) -> newLayerBytes += before.containsKey(digest) ? 0 : size);
  }

  @Override
  public void removed(String reference) {
    cri.images(CALL_DEADLINE).removeImage(
        RemoveImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(reference)).build());
    layers = inventory();
    removals++;
  }

  private Map<String, Long> inventory() {
    Map<String, Long> held = new HashMap<>();
    for (var image : cri.images(CALL_DEADLINE).listImages(ListImagesRequest.getDefaultInstance()).getImagesList()) {
      for (String tag : image.getRepoTagsList()) {
        registry.layers(tag).layers().forEach(layer -> held.put(layer.digest(), layer.size()));
      }
    }
    return held;
  }

  @Override
  public void close() {
    cri.close();
  }
}

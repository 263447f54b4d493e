package io.crigate.bench;

import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ListImagesRequest;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.cli.ctl.CriClient;
import io.crigate.images.Layer;
import io.crigate.images.RegistryClient;
import io.crigate.scheduler.NodeImageStatus;
import io.crigate.scheduler.NodeLayers;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/**
 * One containerd instance acting as a node: its requested resources, and what it really holds, read
 * back from containerd (ListImages) and resolved to layers through the registry after every pull.
 */
final class ExperimentNode implements NodeLayers, AutoCloseable {

  private static final Duration PULL_DEADLINE = Duration.ofMinutes(2);
  private static final Duration LIST_DEADLINE = Duration.ofSeconds(10);

  final String endpoint;
  long cpuMillis;
  long memoryMib;
  int pods;
  private final CriClient cri;
  private final RegistryClient registry;
  /** Node status as the kubelet would report it: image name (repo tag) to size. */
  private Map<String, Long> imageSizes = Map.of();
  private Set<String> layers = Set.of();

  ExperimentNode(String endpoint, RegistryClient registry) {
    this.endpoint = endpoint;
    this.cri = CriClient.connect(endpoint);
    this.registry = registry;
    refresh();
  }

  /** Re-reads the node's images from containerd and their layers from the registry. */
  void refresh() {
    Map<String, Long> sizes = new HashMap<>();
    Set<String> held = new HashSet<>();
    for (var image : cri.images(LIST_DEADLINE).listImages(ListImagesRequest.getDefaultInstance()).getImagesList()) {
      for (String tag : image.getRepoTagsList()) {
        sizes.put(tag, image.getSize());
        registry.layers(tag).layers().forEach(layer -> held.add(layer.digest()));
      }
    }
    imageSizes = sizes;
    layers = held;
  }

  Map<String, Long> imageStatus() {
    return NodeImageStatus.largest(imageSizes, NodeImageStatus.DEFAULT_MAX_IMAGES);
  }

  boolean hasImage(String reference) {
    return imageSizes.containsKey(reference);
  }

  @Override
  public boolean holds(String digest) {
    return layers.contains(digest);
  }

  long missingBytes(Iterable<Layer> needed) {
    long bytes = 0;
    for (Layer layer : needed) {
      bytes += holds(layer.digest()) ? 0 : layer.size();
    }
    return bytes;
  }

  void pull(String reference) {
    cri.images(PULL_DEADLINE).pullImage(
        PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(reference)).build());
    refresh();
  }

  @Override
  public void close() {
    cri.close();
  }
}

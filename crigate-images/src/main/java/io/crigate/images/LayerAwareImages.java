package io.crigate.images;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.api.cri.v1.ImageStatusResponse;
import io.crigate.api.cri.v1.ListImagesResponse;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageBackend;
import io.crigate.spi.ImageObserver;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The gateway's image extension: layer annotations on ListImages and ImageStatus answers, and,
 * when {@code publish} is configured, this node's layer inventory kept current in the cluster.
 *
 * <p>Settings (the {@code images} section of crigate's configuration):
 * <pre>
 * images:
 *   annotateLayers: true      # add imageLayer.sha256:&lt;hex&gt; = &lt;size&gt; (default true)
 *   registry: {...}           # see RegistryClientConfig
 *   publish:
 *     node: node-1            # default: the NODE_NAME environment variable
 * </pre>
 */
public final class LayerAwareImages implements ImageObserver {

  static final Duration DEBOUNCE = Duration.ofSeconds(1);
  static final Duration RESYNC = Duration.ofMinutes(5);
  private static final Set<String> KEYS = Set.of("annotateLayers", "registry", "publish");
  private static final Set<String> PUBLISH_KEYS = Set.of("node");

  private final boolean annotate;
  private final ListImagesAnnotator listAnnotator;
  private final ImageStatusAnnotator statusAnnotator;
  private final List<AutoCloseable> owned;
  private final List<LayerInventory> inventories;

  private LayerAwareImages(boolean annotate, ImageLayerResolver resolver, List<LayerInventory> inventories,
      List<AutoCloseable> owned) {
    this.annotate = annotate;
    this.listAnnotator = new ListImagesAnnotator(resolver);
    this.statusAnnotator = new ImageStatusAnnotator(resolver);
    this.inventories = inventories;
    this.owned = owned;
  }

  /**
   * The observer factory for {@code settings}, or {@link ImageObserver#NONE} when the section is
   * absent. {@code clusterClient} is asked for a client only when publishing is configured.
   *
   * @throws CrigateException.InvalidArgument naming an unknown key or a missing node name
   */
  public static ImageObserver.Factory factory(JsonNode settings, String nodeNameFromEnvironment,
      Supplier<KubernetesClient> clusterClient) {
    if (settings.isMissingNode() || settings.isNull()) {
      return nodeImages -> ImageObserver.NONE;
    }
    rejectUnknown(settings, KEYS, "images");
    boolean annotate = settings.path("annotateLayers").asBoolean(true);
    RegistryClientConfig registry = RegistryClientConfig.fromSettings(settings.path("registry"));
    JsonNode publish = settings.path("publish");
    Optional<String> node = publishedNode(publish, nodeNameFromEnvironment);
    return nodeImages -> create(annotate, registry, node, nodeImages, clusterClient);
  }

  /** Production wiring: fabric8's own discovery (KUBECONFIG, ~/.kube/config, in-cluster account). */
  public static ImageObserver.Factory factory(JsonNode settings) {
    return factory(settings, System.getenv("NODE_NAME"), () -> new KubernetesClientBuilder().build());
  }

  private static ImageObserver create(boolean annotate, RegistryClientConfig registry, Optional<String> node,
      ImageBackend nodeImages, Supplier<KubernetesClient> clusterClient) {
    List<AutoCloseable> owned = new ArrayList<>();
    ExecutorService lookups = Executors.newVirtualThreadPerTaskExecutor();
    owned.add(lookups::shutdownNow);
    ImageLayerResolver resolver = new ImageLayerResolver(new RegistryClient(registry), lookups);
    List<LayerInventory> inventories = new ArrayList<>();
    if (node.isPresent()) {
      KubernetesClient client = clusterClient.get();
      owned.add(client);
      LayerInventory inventory = new LayerInventory(node.get(), LayerInventory.listImagesOf(nodeImages), resolver,
          Clock.systemUTC(), DEBOUNCE, RESYNC, new InventoryPublisher(client));
      owned.add(inventory);
      inventories.add(inventory);
    }
    return new LayerAwareImages(annotate, resolver, List.copyOf(inventories), List.copyOf(owned));
  }

  @Override
  public ListImagesResponse listImages(ListImagesResponse response) {
    return annotate ? listAnnotator.apply(response) : response;
  }

  @Override
  public ImageStatusResponse imageStatus(ImageStatusResponse response) {
    return annotate ? statusAnnotator.apply(response) : response;
  }

  @Override
  public void pullStarted(String image) {
    inventories.forEach(inventory -> inventory.pullStarted(image));
  }

  @Override
  public void pullFinished(String image) {
    inventories.forEach(inventory -> inventory.pullFinished(image));
  }

  @Override
  public void imageRemoved(String image) {
    inventories.forEach(inventory -> inventory.imageRemoved(image));
  }

  /**
   * Closes the inventory first, then its cluster client, then the lookup threads; a failure to close
   * one does not leave the others open.
   */
  @Override
  public void close() {
    IllegalStateException failure = new IllegalStateException("closing the image extension failed");
    for (int i = owned.size() - 1; i >= 0; i--) {
      try {
        owned.get(i).close();
      } catch (Exception e) {
        failure.addSuppressed(e);
      }
    }
    if (failure.getSuppressed().length > 0) {
      throw failure;
    }
  }

  /** The node to publish for; empty when the {@code publish} section is absent. */
  private static Optional<String> publishedNode(JsonNode publish, String nodeNameFromEnvironment) {
    if (publish.isMissingNode()) {
      return Optional.empty();
    }
    rejectUnknown(publish, PUBLISH_KEYS, "images.publish");
    String node = publish.path("node").asText(nodeNameFromEnvironment == null ? "" : nodeNameFromEnvironment);
    if (node.isBlank()) {
      throw new CrigateException.InvalidArgument(
          "images.publish needs the node name: set images.publish.node or the NODE_NAME environment variable");
    }
    return Optional.of(node);
  }

  private static void rejectUnknown(JsonNode section, Set<String> known, String where) {
    for (Iterator<String> names = section.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!known.contains(name)) {
        throw new CrigateException.InvalidArgument("unknown key '%s' in %s (known: %s)"
            .formatted(name, where, String.join(", ", known.stream().sorted().toList())));
      }
    }
  }
}

package io.crigate.images;

import io.crigate.api.cri.v1.Image;
import io.crigate.api.cri.v1.ListImagesRequest;
import io.crigate.api.cri.v1.ListImagesResponse;
import io.crigate.spi.ImageBackend;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The layers this node holds, kept current as images are pulled and removed, and handed to a sink
 * (the cluster publisher) whenever they change.
 *
 * <p>Core calls {@link #pullStarted}, {@link #pullFinished} and {@link #imageRemoved} from the
 * image RPCs; they only record the event and return. A rebuild (ListImages, then each image's
 * layers from the resolver) runs on this inventory's own thread, debounced, and also every
 * {@code resync} to catch changes made behind crigate's back.
 */
final class LayerInventory implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(LayerInventory.class);

  private final String node;
  private final Supplier<ListImagesResponse> images;
  private final ImageLayerResolver resolver;
  private final Clock clock;
  private final Consumer<NodeLayerInventory> sink;
  private final ScheduledExecutorService thread;
  private final Debouncer rebuild;
  private final Set<String> pulls = ConcurrentHashMap.newKeySet();
  private volatile NodeLayerInventory current;

  /**
   * @param images this node's images, e.g. {@link #listImagesOf(ImageBackend)} or core's merged view
   * @param debounce how long a change waits for others before one rebuild
   * @param resync how often to rebuild without a known change
   * @param sink receives the inventory after every rebuild, on the inventory thread; its update
   *     time moves only when the content changed, and the sink skips what it already has
   */
  public LayerInventory(String node, Supplier<ListImagesResponse> images, ImageLayerResolver resolver, Clock clock,
      Duration debounce, Duration resync, Consumer<NodeLayerInventory> sink) {
    this.node = node;
    this.images = images;
    this.resolver = resolver;
    this.clock = clock;
    this.sink = sink;
    this.current = NodeLayerInventory.empty(node, clock.instant());
    this.thread = Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("layer-inventory").daemon().factory());
    this.rebuild = new Debouncer(thread, debounce, this::rebuildNow);
    thread.scheduleWithFixedDelay(rebuild::trigger, 0, resync.toMillis(), TimeUnit.MILLISECONDS);
  }

  public static Supplier<ListImagesResponse> listImagesOf(ImageBackend backend) {
    return () -> backend.listImages(ListImagesRequest.getDefaultInstance());
  }

  /** A pull of {@code image} (as PullImage names it) began: its layers count as arriving. */
  public void pullStarted(String image) {
    pulls.add(image);
    rebuild.trigger();
  }

  /** A pull ended, successfully or not; what landed shows in the next ListImages. */
  public void pullFinished(String image) {
    pulls.remove(image);
    rebuild.trigger();
  }

  public void imageRemoved(String image) {
    rebuild.trigger();
  }

  /** The last inventory built; empty until the first rebuild finishes. */
  public NodeLayerInventory current() {
    return current;
  }

  private void rebuildNow() {
    try {
      NodeLayerInventory next = build();
      if (!next.layers().equals(current.layers()) || !next.pulling().equals(current.pulling())) {
        current = next;
      }
      // handed over even when unchanged: a sink whose last write failed gets its retry here
      sink.accept(current);
    } catch (RuntimeException e) {
      // an unreachable runtime or API server: keep the last inventory, the next trigger or resync retries
      LOG.warn("layer inventory of node {} not rebuilt: {}", node, e.getMessage());
    }
  }

  private NodeLayerInventory build() {
    List<Image> held = images.get().getImagesList();
    Set<String> pulling = Set.copyOf(pulls);
    var present = new HashMap<String, Long>();
    for (ImageLayers image : all(held.stream().map(resolver::resolve).toList())) {
      image.layers().forEach(layer -> present.put(layer.digest(), layer.size()));
    }
    var layers = new HashMap<>(present);
    var arriving = new HashSet<String>();
    for (ImageLayers image : all(pulling.stream().map(resolver::resolve).toList())) {
      for (Layer layer : image.layers()) {
        if (!present.containsKey(layer.digest())) {
          layers.put(layer.digest(), layer.size());
          arriving.add(layer.digest());
        }
      }
    }
    return new NodeLayerInventory(node, layers, arriving, clock.instant());
  }

  private static List<ImageLayers> all(List<CompletableFuture<Optional<ImageLayers>>> lookups) {
    return lookups.stream().map(CompletableFuture::join).flatMap(Optional::stream).toList();
  }

  @Override
  public void close() {
    thread.shutdownNow();
  }
}

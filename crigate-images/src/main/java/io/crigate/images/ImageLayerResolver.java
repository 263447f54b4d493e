package io.crigate.images;

import io.crigate.api.cri.v1.Image;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.LoggerFactory;

/**
 * Finds the layers of images a runtime reports, from the registry they were pulled from, off the
 * caller's thread. An image is looked up by its repo digest ({@code registry/repo@sha256:…}),
 * which pins exactly the content the runtime holds; images without one (imported, built locally)
 * have no registry to ask and get no layers.
 *
 * <p>{@link #cached} never blocks and never throws: a miss starts a lookup and answers empty, so
 * the CRI call it serves is not delayed. Failed lookups are retried after {@link #RETRY_AFTER}.
 */
final class ImageLayerResolver {

  private record Known(ImageLayers layers, Map<String, String> annotations) {}

  static final Duration RETRY_AFTER = Duration.ofMinutes(1);
  private static final Duration LOG_INTERVAL = Duration.ofMinutes(1);

  private final Function<ImageRef, ImageLayers> registry;
  private final Executor executor;
  private final Clock clock;
  private final BoundedCache<String, Known> resolved;
  private final Map<String, Instant> failedUntil = new ConcurrentHashMap<>();
  private final Map<String, CompletableFuture<Optional<ImageLayers>>> inFlight = new ConcurrentHashMap<>();
  private final RateLimitedLog log;

  /**
   * @param registry looks one image up, usually {@code registryClient::layers}; may block and throw
   * @param executor runs lookups, e.g. a virtual-thread executor
   */
  public ImageLayerResolver(Function<ImageRef, ImageLayers> registry, Executor executor, Clock clock, int capacity) {
    this.registry = registry;
    this.executor = executor;
    this.clock = clock;
    this.resolved = new BoundedCache<>(capacity);
    this.log = new RateLimitedLog(LoggerFactory.getLogger(ImageLayerResolver.class), clock, LOG_INTERVAL);
  }

  public ImageLayerResolver(RegistryClient client, Executor executor) {
    this(client::layers, executor, Clock.systemUTC(), 4096);
  }

  /** The image's layers if already known; otherwise starts a lookup and answers empty. */
  public Optional<ImageLayers> cached(Image image) {
    return known(image).map(Known::layers);
  }

  /** {@link #cached} as ready-made {@code imageLayer.} annotations, computed once per digest. */
  Optional<Map<String, String>> annotations(Image image) {
    return known(image).map(Known::annotations);
  }

  /** The hot path: a substring and a map lookup per repo digest; parsing waits for a miss. */
  private Optional<Known> known(Image image) {
    for (String repoDigest : image.getRepoDigestsList()) {
      Known known = resolved.get(repoDigest.substring(repoDigest.lastIndexOf('@') + 1));
      if (known != null) {
        return Optional.of(known);
      }
    }
    try {
      pinnedReference(image).ifPresent(this::resolve);
    } catch (RuntimeException rejected) {
      // the executor is shutting down or saturated: the next call tries again
    }
    return Optional.empty();
  }

  /** Completes with the image's layers, or empty when it has no repo digest or the lookup failed. */
  public CompletableFuture<Optional<ImageLayers>> resolve(Image image) {
    return pinnedReference(image).map(this::resolve).orElseGet(() -> CompletableFuture.completedFuture(Optional.empty()));
  }

  /**
   * Completes with the layers of an image named as PullImage names it ({@code busybox:1.36});
   * empty when the reference is malformed or the lookup failed. Tags are not cached here (the
   * registry client trusts a tag only briefly); digests are.
   */
  public CompletableFuture<Optional<ImageLayers>> resolve(String reference) {
    ImageRef ref;
    try {
      ref = ImageRef.parse(reference);
    } catch (CrigateException.InvalidArgument malformed) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    if (ref.digest() != null) {
      return resolve(ref);
    }
    if (waitingToRetry(ref.toString())) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    return CompletableFuture.supplyAsync(() -> lookUp(ref, ref.toString()), executor);
  }

  private CompletableFuture<Optional<ImageLayers>> resolve(ImageRef ref) {
    String key = ref.digest();
    Known known = resolved.get(key);
    if (known != null) {
      return CompletableFuture.completedFuture(Optional.of(known.layers()));
    }
    if (waitingToRetry(key)) {
      return CompletableFuture.completedFuture(Optional.empty());
    }
    CompletableFuture<Optional<ImageLayers>> lookup =
        inFlight.computeIfAbsent(key, k -> CompletableFuture.supplyAsync(() -> lookUp(ref, k), executor));
    // outside computeIfAbsent: a lookup that already finished would otherwise remove itself recursively
    lookup.whenComplete((result, error) -> inFlight.remove(key, lookup));
    return lookup;
  }

  private Optional<ImageLayers> lookUp(ImageRef ref, String key) {
    try {
      ImageLayers layers = registry.apply(ref);
      if (ref.digest() != null) {
        resolved.put(key, new Known(layers, LayerAnnotations.of(layers)));
      }
      failedUntil.remove(key);
      return Optional.of(layers);
    } catch (RuntimeException e) {
      failedUntil.put(key, clock.instant().plus(RETRY_AFTER));
      log.warn(ref.registry(), "no layer sizes for %s: %s".formatted(ref, e.getMessage()));
      return Optional.empty();
    }
  }

  private boolean waitingToRetry(String key) {
    Instant retry = failedUntil.get(key);
    return retry != null && clock.instant().isBefore(retry);
  }

  /** The first repo digest that parses, e.g. {@code 127.0.0.1:5000/crigate/a@sha256:…}. */
  static Optional<ImageRef> pinnedReference(Image image) {
    for (String repoDigest : image.getRepoDigestsList()) {
      try {
        ImageRef ref = ImageRef.parse(repoDigest);
        if (ref.digest() != null) {
          return Optional.of(ref);
        }
      } catch (CrigateException.InvalidArgument malformed) {
        // runtimes have reported odd names; try the next
      }
    }
    return Optional.empty();
  }
}

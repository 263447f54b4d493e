package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * A synthetic image catalog with the sharing real registries show: OS base layers under language
 * runtimes under applications. Base and runtime sizes are approximations we chose from typical
 * compressed (registry) sizes of the public images named below, rounded; application layers are
 * drawn from a log-normal distribution around tens of MB. Nothing here is measured from a registry.
 */
public record ImageCatalog(List<ImageLayers> images) {

  static final long MB = 1_000_000L;

  /** A runtime image: its ancestor's layers plus its own, and how often apps build on it. */
  private record Runtime(String name, String parent, long[] ownLayerSizes, double appShare) {}

  // Approximate compressed sizes (MB); the share is how many of the catalog's apps use each runtime.
  private static final List<Runtime> RUNTIMES = List.of(
      new Runtime("debian:bookworm", null, new long[] {49}, 0),
      new Runtime("debian:bookworm-slim", null, new long[] {29}, 0),
      new Runtime("ubuntu:22.04", null, new long[] {29}, 0),
      new Runtime("alpine:3.19", null, new long[] {3}, 0.05),
      // buildpack-deps (curl, scm, build tools) on full debian, then the language itself
      new Runtime("buildpack-deps:bookworm", "debian:bookworm", new long[] {24, 64, 211}, 0),
      new Runtime("python:3.12", "buildpack-deps:bookworm", new long[] {6, 26, 3}, 0.15),
      new Runtime("python:3.12-slim", "debian:bookworm-slim", new long[] {4, 12}, 0.15),
      new Runtime("node:20", "buildpack-deps:bookworm", new long[] {4, 41, 2}, 0.1),
      new Runtime("node:20-slim", "debian:bookworm-slim", new long[] {4, 41, 2}, 0.1),
      new Runtime("node:20-alpine", "alpine:3.19", new long[] {41, 2}, 0.05),
      new Runtime("eclipse-temurin:21-jre", "ubuntu:22.04", new long[] {17, 52}, 0.2),
      new Runtime("eclipse-temurin:21-jdk", "ubuntu:22.04", new long[] {17, 145}, 0.05),
      new Runtime("nginx:1.25", "debian:bookworm-slim", new long[] {41, 1}, 0.1),
      new Runtime("distroless-static", null, new long[] {2}, 0.05));

  /** Median of an app's dependency layer (pip/npm packages, jars) and of its code layer. */
  static final double DEPS_MEDIAN_MB = 60;
  static final double CODE_MEDIAN_MB = 8;
  static final double LOG_SIGMA = 1.0;

  public ImageLayers image(String reference) {
    return images.stream().filter(i -> i.reference().equals(reference)).findFirst()
        .orElseThrow(() -> new CrigateException.InvalidArgument(
            "image %s is not in the simulated catalog (app-000:1 .. app-%03d:1)".formatted(reference, images.size() - 1)));
  }

  /** The runtimes (as images of their own) followed by {@code apps} applications, all from the seed. */
  public static ImageCatalog generate(long seed, int apps) {
    SplittableRandom random = new SplittableRandom(seed);
    Map<String, List<Layer>> runtimeLayers = new LinkedHashMap<>();
    for (Runtime runtime : RUNTIMES) {
      List<Layer> layers = new ArrayList<>(runtime.parent() == null ? List.of() : runtimeLayers.get(runtime.parent()));
      for (int i = 0; i < runtime.ownLayerSizes().length; i++) {
        layers.add(new Layer(Digests.of(runtime.name() + "#" + i), runtime.ownLayerSizes()[i] * MB));
      }
      runtimeLayers.put(runtime.name(), layers);
    }
    List<ImageLayers> images = new ArrayList<>();
    for (int app = 0; app < apps; app++) {
      String name = "app-%03d:1".formatted(app);
      List<Layer> layers = new ArrayList<>(runtimeLayers.get(pickRuntime(random).name()));
      layers.add(new Layer(Digests.of(name + "#deps"), logNormalBytes(random, DEPS_MEDIAN_MB)));
      layers.add(new Layer(Digests.of(name + "#code"), logNormalBytes(random, CODE_MEDIAN_MB)));
      images.add(new ImageLayers(name, Digests.of(name), layers));
    }
    return new ImageCatalog(images);
  }

  private static Runtime pickRuntime(SplittableRandom random) {
    double x = random.nextDouble();
    for (Runtime runtime : RUNTIMES) {
      x -= runtime.appShare();
      if (x < 0) {
        return runtime;
      }
    }
    return RUNTIMES.getLast();
  }

  private static long logNormalBytes(SplittableRandom random, double medianMb) {
    // Box-Muller: a standard normal from two uniforms
    double normal = Math.sqrt(-2 * Math.log(1 - random.nextDouble())) * Math.cos(2 * Math.PI * random.nextDouble());
    return Math.max(1, (long) (medianMb * Math.exp(LOG_SIGMA * normal) * MB));
  }
}

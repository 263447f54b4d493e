package io.crigate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LayerLocalityTest {

  static final Layer OS = layer('a', 300);
  static final Layer RUNTIME = layer('b', 100);
  static final Layer APP = layer('c', 100);
  static final Layer SIDECAR = layer('d', 500);

  static Layer layer(char hex, long size) {
    return new Layer("sha256:" + String.valueOf(hex).repeat(64), size);
  }

  static ImageLayers image(String ref, Layer... layers) {
    return new ImageLayers(ref, "sha256:" + "f".repeat(64), List.of(layers));
  }

  static NodeLayers node(Layer... held) {
    Set<String> digests = Stream.of(held).map(Layer::digest).collect(java.util.stream.Collectors.toSet());
    return digests::contains;
  }

  record Case(String name, List<ImageLayers> images, NodeLayers scored, List<NodeLayers> cluster, long expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final ImageLayers APP_IMAGE = image("app:1", OS, RUNTIME, APP);

  static Stream<Case> cases() {
    NodeLayers full = node(OS, RUNTIME, APP);
    NodeLayers base = node(OS, RUNTIME);
    NodeLayers empty = node();
    return Stream.of(
        // pod 500 bytes, node holds all, every node holds all: 10 x 500/500 = 10
        new Case("all layers everywhere", List.of(APP_IMAGE), full, List.of(full, full), 10),
        // holds 300+100 of 500, both nodes hold them: 10 x 400/500 = 8
        new Case("base layers count without the image", List.of(APP_IMAGE), base, List.of(base, base), 8),
        // holds all; OS, RUNTIME on 2 of 2, APP on 1 of 2: (300+100+100x1/2)/500 = 450/500 -> 9
        new Case("rare layer counts partly", List.of(APP_IMAGE), full, List.of(full, base), 9),
        // the only holder of 4 nodes: 500 x 1/4 = 125; 10 x 125/500 = 2.5 -> 2
        new Case("sole holder is spread down", List.of(APP_IMAGE), full, List.of(full, empty, empty, empty), 2),
        // nothing held: 0
        new Case("empty node", List.of(APP_IMAGE), empty, List.of(full, empty), 0),
        // pod = app (OS,RUNTIME,APP) + sidecar (OS,SIDECAR): distinct bytes 300+100+100+500 = 1000,
        // OS counted once; node holds OS+RUNTIME everywhere: 10 x 400/1000 = 4
        new Case("shared layer counts once across containers",
            List.of(APP_IMAGE, image("sidecar:1", OS, SIDECAR)), base, List.of(base, base), 4));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scores(Case c) {
    PodLayers pod = PodLayers.of(c.images());
    LayerSpread spread = LayerSpread.of(pod, c.cluster());
    assertThat(LayerLocality.score(pod, c.scored(), spread)).isEqualTo(c.expected());
  }

  @Test
  void podWithoutLayersScoresZero() {
    // an empty pod would divide by zero; it gets no preference instead
    assertThat(LayerLocality.calculatePriority(0, 0)).isZero();
  }

  @Test
  void distinctLayersSumOnce() {
    PodLayers pod = PodLayers.of(List.of(APP_IMAGE, image("sidecar:1", OS, SIDECAR)));
    // OS (300) appears in both images and is counted once: 300 + 100 + 100 + 500
    assertThat(pod.totalBytes()).isEqualTo(1000);
    assertThat(pod.layers()).containsExactly(OS, RUNTIME, APP, SIDECAR);
  }
}

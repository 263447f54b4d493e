package io.crigate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LayerLocalityTest {

  static final long MB = 1_000_000;
  static final Layer OS = layer('a', 300 * MB);
  static final Layer RUNTIME = layer('b', 100 * MB);
  static final Layer DEPS = layer('c', 60 * MB);
  static final Layer CODE = layer('d', 8 * MB);
  static final Layer SHARED = layer('e', 20 * MB);
  static final Layer SIDECAR = layer('f', 5 * MB);

  static Layer layer(char hex, long size) {
    return new Layer("sha256:" + String.valueOf(hex).repeat(64), size);
  }

  static ImageLayers image(String ref, Layer... layers) {
    return new ImageLayers(ref, "sha256:" + "f".repeat(64), List.of(layers));
  }

  static NodeLayers node(Layer... held) {
    Set<String> digests = Stream.of(held).map(Layer::digest).collect(Collectors.toSet());
    return digests::contains;
  }

  record Case(String name, List<ImageLayers> images, List<NodeLayers> candidates, long[] expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static final ImageLayers APP_IMAGE = image("app:1", OS, RUNTIME, DEPS, CODE);

  static Stream<Case> cases() {
    NodeLayers full = node(OS, RUNTIME, DEPS, CODE);
    NodeLayers noCode = node(OS, RUNTIME, DEPS);
    NodeLayers runtime = node(OS, RUNTIME);
    NodeLayers os = node(OS);
    NodeLayers empty = node();
    return Stream.of(
        // pod 468 MB; both miss 0: extra 0 -> 10 - 0
        new Case("every candidate holds everything", List.of(APP_IMAGE), List.of(full, full), new long[] {10, 10}),
        // missing 0 and 8 MB: extra 8 MB -> round(0.16) = 0 -> 10: a code layer does not move the pod
        new Case("an 8 MB difference is no preference", List.of(APP_IMAGE), List.of(full, noCode), new long[] {10, 10}),
        // missing 0 and 60 + 8 = 68 MB: round(1.36) = 1 -> 9
        new Case("tens of MB cost one point", List.of(APP_IMAGE), List.of(full, runtime), new long[] {10, 9}),
        // missing 0, 168 MB (round(3.36) = 3, capped 2) and 468 MB (round(9.36) = 9, capped 2)
        new Case("any larger pull costs at most two", List.of(APP_IMAGE), List.of(full, os, empty), new long[] {10, 8, 8}),
        // nobody holds DEPS + CODE: missing 68, 168, 468 MB; fewest 68 -> extra 0, 100 (2), 400 (capped 2)
        new Case("bytes every candidate lacks do not count", List.of(APP_IMAGE), List.of(runtime, os, empty),
            new long[] {10, 8, 8}),
        // the best candidate is not first: missing 168 and 68 -> extra 100 (2) and 0
        new Case("the best candidate may be anywhere", List.of(APP_IMAGE), List.of(os, runtime), new long[] {8, 10}),
        // app (OS, SHARED) + sidecar (SHARED, SIDECAR): SHARED is one 20 MB layer; missing 0 and 20 MB -> round(0.4) = 0;
        // counted twice it would be 40 MB -> round(0.8) = 1 -> 9
        new Case("a layer in two containers counts once",
            List.of(image("app:1", OS, SHARED), image("sidecar:1", SHARED, SIDECAR)),
            List.of(node(OS, SHARED, SIDECAR), node(OS, SIDECAR)), new long[] {10, 10}),
        // a pod without layers (no image resolved) has nothing to pull anywhere: no preference
        new Case("pod without layers", List.of(), List.of(full, empty), new long[] {10, 10}),
        new Case("no candidates", List.of(APP_IMAGE), List.of(), new long[] {}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scores(Case c) {
    PodLayers pod = PodLayers.of(c.images());
    List<boolean[]> held = c.candidates().stream().map(node -> LayerLocality.held(pod, node)).toList();
    assertThat(LayerLocality.scores(pod, held)).containsExactly(c.expected());
  }

  record Step(long extraBytes, long expected) {}

  /** The rounding boundaries: half a point (25 MB) rounds up to one, one and a half (75 MB) to two. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("steps")
  void priorityRoundsHalfUpAndCaps(Step step) {
    assertThat(LayerLocality.priority(step.extraBytes())).isEqualTo(step.expected());
  }

  static Stream<Step> steps() {
    return Stream.of(
        new Step(0, 10),
        new Step(25 * MB - 1, 10),
        new Step(25 * MB, 9),
        new Step(75 * MB - 1, 9),
        new Step(75 * MB, 8),
        new Step(10_000 * MB, 8));
  }

  @Test
  void distinctLayersSumOnce() {
    PodLayers pod = PodLayers.of(List.of(APP_IMAGE, image("sidecar:1", OS, SIDECAR)));
    // OS (300 MB) appears in both images and is counted once: 300 + 100 + 60 + 8 + 5
    assertThat(pod.totalBytes()).isEqualTo(473 * MB);
    assertThat(pod.layers()).containsExactly(OS, RUNTIME, DEPS, CODE, SIDECAR);
  }
}

package io.crigate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;

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
        // missing 0 and 8 MB: extra 8 MB -> round(0.4) = 0 -> 10: a code layer does not move the pod
        new Case("an 8 MB difference is no preference", List.of(APP_IMAGE), List.of(full, noCode), new long[] {10, 10}),
        // missing 0 and 60 + 8 = 68 MB: round(3.4) = 3 -> 7
        new Case("tens of MB cost a few points", List.of(APP_IMAGE), List.of(full, runtime), new long[] {10, 7}),
        // missing 0, 168 MB (round(8.4) = 8, capped 5) and 468 MB (round(23.4) = 23, capped 5)
        new Case("any larger pull costs at most five", List.of(APP_IMAGE), List.of(full, os, empty), new long[] {10, 5, 5}),
        // nobody holds DEPS + CODE: missing 68, 168, 468 MB; fewest 68 -> extra 0 (10, where 68 MB alone would be 7),
        // 100 (5) and 400 (capped 5)
        new Case("bytes every candidate lacks do not count", List.of(APP_IMAGE), List.of(runtime, os, empty),
            new long[] {10, 5, 5}),
        // the best candidate is not first: missing 168 and 68 -> extra 100 (5) and 0
        new Case("the best candidate may be anywhere", List.of(APP_IMAGE), List.of(os, runtime), new long[] {5, 10}),
        // app (OS, SHARED) + sidecar (SHARED, SIDECAR): SHARED is one 20 MB layer; missing 0 and 20 MB -> round(1.0) = 1
        // -> 9; counted twice it would be 40 MB -> 2 -> 8
        new Case("a layer in two containers counts once",
            List.of(image("app:1", OS, SHARED), image("sidecar:1", SHARED, SIDECAR)),
            List.of(node(OS, SHARED, SIDECAR), node(OS, SIDECAR)), new long[] {10, 9}),
        // a pod without layers (no image resolved) has nothing to pull anywhere: no preference
        new Case("pod without layers", List.of(), List.of(full, empty), new long[] {10, 10}),
        new Case("no candidates", List.of(APP_IMAGE), List.of(), new long[] {}));
  }

  /**
   * Every candidate equally loaded: each is every other's alternative (u differs by 0, within the neighbour band). A
   * one-core pod, so bytes count as they are.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scoresWithEqualLoads(Case c) {
    assertThat(scores(c.images(), c.candidates(), 1000, Collections.nCopies(c.candidates().size(), cpu(4000))))
        .containsExactly(c.expected());
  }

  /** No load known: the load-blind score, the same numbers. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scoresWithoutLoadsAreLoadBlind(Case c) {
    assertThat(scores(c.images(), c.candidates(), 1000, Collections.nCopies(c.candidates().size(), NodeLoad.UNKNOWN)))
        .containsExactly(c.expected());
  }

  static long[] scores(List<ImageLayers> images, List<NodeLayers> candidates, long podCpuMillis, List<NodeLoad> loads) {
    PodLayers pod = PodLayers.of(images);
    return LayerLocality.scores(candidates.stream().mapToLong(node -> LayerLocality.missingBytes(pod, node)).toArray(),
        podCpuMillis, loads);
  }

  /** No pod count known (0 everywhere): the load is the CPU alone. */
  static NodeLoad cpu(long requestedMillis) {
    return new NodeLoad(requestedMillis, 8000, 0);
  }

  static NodeLoad cpu(long requestedMillis, int pods) {
    return new NodeLoad(requestedMillis, 8000, pods);
  }

  record LoadCase(String name, List<NodeLayers> candidates, long podCpuMillis, List<NodeLoad> loads, long[] expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  /**
   * The app image (468 MB) on a holder and on nodes that hold nothing: a non-holder is charged
   * round(468 / 20) = 23, capped 5, when the holder is its alternative, and nothing otherwise.
   * u = (requested + pod) / 8000; the mean is over the requests before the pod; the bands are
   * 0.22 x mean above the mean and 0.05 x mean above the charged node ({@link LoadBands}).
   */
  static Stream<LoadCase> loadCases() {
    NodeLayers holder = node(OS, RUNTIME, DEPS, CODE);
    NodeLayers empty = node();
    return Stream.of(
        // mean (0.75 + 0.25 + 0.25) / 3 = 0.417; holder u 0.8125 > 0.417 + 0.092 and > 0.3125 + 0.021: no one's alternative
        new LoadCase("a busy holder does not pull the pod", List.of(holder, empty, empty), 500,
            List.of(cpu(6000), cpu(2000), cpu(2000)), new long[] {10, 10, 10}),
        // mean (0.3 + 0.25 + 0.4) / 3 = 0.317; holder u 0.3625 <= 0.317 + 0.070: alternative to both, even to the one at 0.3125
        new LoadCase("a holder near the mean pulls from every node", List.of(holder, empty, empty), 500,
            List.of(cpu(2400), cpu(2000), cpu(3200)), new long[] {10, 5, 5}),
        // mean (0.4 + 0.3 + 0.3) / 3 = 0.333; holder u with a 40 m pod 0.405 <= 0.333 + 0.073 = 0.407: alternative
        new LoadCase("a small pod follows a holder just below the band", List.of(holder, empty, empty), 40,
            List.of(cpu(3200), cpu(2400), cpu(2400)), new long[] {10, 5, 5}),
        // same nodes, 400 m pod: holder u 0.45 > 0.407, and > 0.35 + 0.017: not an alternative
        new LoadCase("a large pod does not", List.of(holder, empty, empty), 400,
            List.of(cpu(3200), cpu(2400), cpu(2400)), new long[] {10, 10, 10}),
        // mean (0.75 + 0.73 + 0) / 3 = 0.493; holder u 0.76 > 0.493 + 0.109, but <= 0.74 + 0.025 of the second node:
        // that one is charged (5); the idle third (0.01 + 0.025 < 0.76) is not
        new LoadCase("a holder hardly busier than the node itself is its alternative", List.of(holder, empty, empty), 80,
            List.of(cpu(6000), cpu(5840), cpu(0)), new long[] {10, 5, 10}),
        // holder load unknown: alternative to everyone, as without loads
        new LoadCase("a holder of unknown load pulls like the load-blind score", List.of(holder, empty, empty), 500,
            List.of(NodeLoad.UNKNOWN, cpu(2000), cpu(2000)), new long[] {10, 5, 5}),
        // mean over the known (0.75 + 0.25) / 2 = 0.5; the busy holder (0.8125) is the known empty node's alternative
        // neither by the mean (0.61) nor as a neighbour (0.3375), but every candidate is the unknown node's alternative
        new LoadCase("a node of unknown load is charged against every candidate", List.of(holder, empty, empty), 500,
            List.of(cpu(6000), NodeLoad.UNKNOWN, cpu(2000)), new long[] {10, 5, 10}),
        new LoadCase("load alone never separates nodes: all hold the layers", List.of(holder, holder, holder), 500,
            List.of(cpu(7000), cpu(0), cpu(3000)), new long[] {10, 10, 10}),
        new LoadCase("load alone never separates nodes: none holds them", List.of(empty, empty, empty), 500,
            List.of(cpu(7000), cpu(0), cpu(3000)), new long[] {10, 10, 10}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("loadCases")
  void loadDecidesWhichNodesAreAlternatives(LoadCase c) {
    assertThat(scores(List.of(APP_IMAGE), c.candidates(), c.podCpuMillis(), c.loads())).containsExactly(c.expected());
  }

  /**
   * The pod count where it is out of line with the CPU. The app image (468 MB) on a holder, a 100 m
   * pod, 8000 m nodes, 6800 m requested in all. u = max((requested + 100) / 8000,
   * 0.5 x (pods + 1) x per pod / 8000), per pod = 6800 m / all pods; mean 0.2833 (CPU alone), so
   * a holder is everyone's alternative up to u = 0.3457 and a node's neighbour up to its own u +
   * 0.0142.
   */
  static Stream<LoadCase> podCases() {
    NodeLayers holder = node(OS, RUNTIME, DEPS, CODE);
    NodeLayers empty = node();
    return Stream.of(
        // per pod 6800 / 18 = 377.8 m; holder CPU 2100 / 8000 = 0.2625, but 15 pods at half of 377.8 m: 0.3542 > 0.3457,
        // and > 0.3125 + 0.0142 of the others: no one's alternative (by CPU alone it would be: 10, 5, 5)
        new LoadCase("a holder crowded with small pods does not pull the pod", List.of(holder, empty, empty), 100,
            List.of(cpu(2000, 14), cpu(2400, 2), cpu(2400, 2)), new long[] {10, 10, 10}),
        // per pod 6800 / 6 = 1133 m; holder 3 pods at half of it: 0.2125 < its CPU 0.2625 <= 0.3457: CPU decides
        new LoadCase("the same CPU in pods of the usual size does", List.of(holder, empty, empty), 100,
            List.of(cpu(2000, 2), cpu(2400, 2), cpu(2400, 2)), new long[] {10, 5, 5}),
        // per pod 377.8 m; holder CPU 0.3625 > 0.3457; the crowded second node's u is 0.3542 (CPU 0.2125), so the
        // holder is within its band (0.3683) and it is charged; the third (0.3125 + 0.0142) is not. By CPU alone the
        // second would not be either (0.2125 + 0.0142): 10, 10, 10
        new LoadCase("a node crowded with small pods is charged against a holder just above it",
            List.of(holder, empty, empty), 100, List.of(cpu(2800, 2), cpu(1600, 14), cpu(2400, 2)),
            new long[] {10, 5, 10}));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podCases")
  void podsCountWhereTheyAreOutOfLineWithTheCpu(LoadCase c) {
    assertThat(scores(List.of(APP_IMAGE), c.candidates(), c.podCpuMillis(), c.loads())).containsExactly(c.expected());
  }

  /**
   * The bands are fractions of the mean load ({@link LoadBands}), so whether a holder is an
   * alternative depends on how far above the mean it is relative to the mean, at any load. Two
   * others at {@code others} m each, a holder at {@code holderMillis} of 8000 m, a pod of no
   * request (u is the requests alone). A holder 1.2 x the mean is within 0.22 x mean: both others
   * are charged. A fixed band of 0.11 of a node would exclude it at 0.62 mean (0.75 > 0.735).
   */
  @ParameterizedTest(name = "others at {0} m")
  @ValueSource(longs = {1500, 3000, 4500})
  void aHolderAFifthAboveTheMeanIsAnAlternativeAtEveryLoad(long others) {
    long holderMillis = others * 4 / 3; // u(holder) = 1.2 x (holder + 2 x others) / 3
    assertThat(scores(List.of(APP_IMAGE), List.of(node(OS, RUNTIME, DEPS, CODE), node(), node()), 0,
        List.of(cpu(holderMillis), cpu(others), cpu(others)))).containsExactly(10, 5, 5);
  }

  /**
   * A holder 1.3 x the mean is outside 0.22 x mean and far above the others: no one is charged, at
   * any load. A fixed band of 0.11 of a node would let it pull at 0.22 mean (0.287 < 0.331).
   */
  @ParameterizedTest(name = "others at {0} m")
  @ValueSource(longs = {1500, 3000, 4500})
  void aHolderAThirdAboveTheMeanIsNoAlternativeAtAnyLoad(long others) {
    long holderMillis = Math.round(others * 2.6 / 1.7); // u(holder) = 1.3 x (holder + 2 x others) / 3
    assertThat(scores(List.of(APP_IMAGE), List.of(node(OS, RUNTIME, DEPS, CODE), node(), node()), 0,
        List.of(cpu(holderMillis), cpu(others), cpu(others)))).containsExactly(10, 10, 10);
  }

  record SizeCase(long podCpuMillis, long expected) {}

  /**
   * A holder and a node missing DEPS + CODE (68 MB), equally loaded: the extra bytes are divided by
   * the pod's cores, clamped to 0.5..2.
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("sizeCases")
  void smallPodsFollowTheirLayersMoreThanLargeOnes(SizeCase c) {
    List<NodeLayers> candidates = List.of(node(OS, RUNTIME, DEPS, CODE), node(OS, RUNTIME));
    assertThat(scores(List.of(APP_IMAGE), candidates, c.podCpuMillis(), List.of(cpu(0), cpu(0))))
        .containsExactly(10, c.expected());
  }

  static Stream<SizeCase> sizeCases() {
    return Stream.of(
        new SizeCase(1000, 7),   // 68 MB: round(3.4) = 3
        new SizeCase(500, 5),    // 136 MB: round(6.8) = 7, capped 5
        new SizeCase(0, 5),      // no request counts as half a core
        new SizeCase(1500, 8),   // 45.3 MB: round(2.27) = 2
        new SizeCase(2000, 8),   // 34 MB: round(1.7) = 2
        new SizeCase(8000, 8));  // clamped at 2 cores
  }

  @Test
  void oneLoadPerCandidate() {
    assertThatThrownBy(() -> LayerLocality.scores(new long[2], 500, List.of(cpu(0))))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("2 candidates but 1 loads");
  }

  record Step(long extraBytes, long expected) {}

  /** The rounding boundaries: half a point (10 MB) rounds up to one, four and a half (90 MB) to five, the cap. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("steps")
  void priorityRoundsHalfUpAndCaps(Step step) {
    assertThat(LayerLocality.priority(step.extraBytes())).isEqualTo(step.expected());
  }

  static Stream<Step> steps() {
    return Stream.of(
        new Step(0, 10),
        new Step(10 * MB - 1, 10),
        new Step(10 * MB, 9),
        new Step(90 * MB - 1, 6),
        new Step(90 * MB, 5),
        new Step(10_000 * MB, 5));
  }

  @Test
  void distinctLayersSumOnce() {
    PodLayers pod = PodLayers.of(List.of(APP_IMAGE, image("sidecar:1", OS, SIDECAR)));
    // OS (300 MB) appears in both images and is counted once: 300 + 100 + 60 + 8 + 5
    assertThat(pod.totalBytes()).isEqualTo(473 * MB);
    assertThat(pod.layers()).containsExactly(OS, RUNTIME, DEPS, CODE, SIDECAR);
  }

  /**
   * The score computed in a reused {@link LayerLocality.Scratch}, over calls of growing and
   * shrinking candidate counts, equals the formula of the class comment evaluated the slow way
   * (every candidate against every other), on random candidates, layers and loads, some unknown.
   */
  @Test
  void aReusedScratchScoresAsTheFormulaEvaluatedPairByPair() {
    SplittableRandom random = new SplittableRandom(18);
    LayerLocality.Scratch scratch = new LayerLocality.Scratch();
    long[] layerSizes = {300 * MB, 100 * MB, 60 * MB, 8 * MB, 20 * MB, 5 * MB};
    for (int call = 0; call < 300; call++) {
      int n = 1 + random.nextInt(call % 3 == 0 ? 400 : 40);
      long[] missing = new long[n];
      List<NodeLoad> loads = new ArrayList<>();
      for (int c = 0; c < n; c++) {
        for (long size : layerSizes) {
          missing[c] += random.nextInt(3) == 0 ? size : 0;
        }
        long allocatable = random.nextInt(6) == 0 ? 0 : 2000 + 1000L * random.nextInt(8);
        loads.add(allocatable == 0 ? NodeLoad.UNKNOWN
            : new NodeLoad(random.nextLong(allocatable), allocatable, call % 4 == 0 ? 0 : random.nextInt(30)));
      }
      long podCpu = random.nextLong(3000);
      long[] expected = pairByPair(missing, podCpu, loads);
      assertThat(LayerLocality.scores(missing.clone(), podCpu, loads, scratch)).as("call %d, %d candidates", call, n)
          .containsExactly(expected);
    }
  }

  /**
   * c' is an alternative to c when either load is unknown, or u(c') is within the mean band or within c's own band;
   * u is the CPU with the pod, or half the mean request per pod for each pod with the pod, whichever is more.
   */
  static long[] pairByPair(long[] missing, long podCpu, List<NodeLoad> loads) {
    int n = missing.length;
    double mean = loads.stream().filter(NodeLoad::known).mapToDouble(NodeLoad::utilization).average().orElse(0);
    long pods = loads.stream().filter(NodeLoad::known).mapToLong(NodeLoad::pods).sum();
    double perPod = pods == 0 ? 0
        : loads.stream().filter(NodeLoad::known).mapToLong(NodeLoad::requestedMillis).sum() / (double) pods;
    double[] u = loads.stream().mapToDouble(l -> Math.max((double) (l.requestedMillis() + podCpu) / l.allocatableMillis(),
        0.5 * (l.pods() + 1) * perPod / l.allocatableMillis())).toArray();
    LoadBands bands = LoadBands.around(mean);
    double cores = Math.clamp(podCpu / 1000.0, LayerLocality.MIN_CORES, LayerLocality.MAX_CORES);
    long[] scores = new long[n];
    for (int c = 0; c < n; c++) {
      long best = Long.MAX_VALUE;
      for (int other = 0; other < n; other++) {
        boolean alternative = !loads.get(c).known() || !loads.get(other).known()
            || u[other] <= mean + bands.aboveMean()
            || u[other] <= u[c] + bands.aboveNode();
        if (alternative || other == c) {
          best = Math.min(best, missing[other]);
        }
      }
      scores[c] = LayerLocality.priority(Math.round((missing[c] - best) / cores));
    }
    return scores;
  }
}

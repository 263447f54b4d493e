package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.PodLayers;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class LayerIndexTest {

  static final Layer X = new Layer("sha256:" + "a".repeat(64), 10);
  static final Layer Y = new Layer("sha256:" + "b".repeat(64), 20);
  static final PodLayers POD = PodLayers.of(List.of(new ImageLayers("p:1", "sha256:" + "c".repeat(64), List.of(X, Y))));

  static NodeLayerInventory inventory(String node, Layer... layers) {
    Map<String, Long> held = new java.util.HashMap<>();
    for (Layer layer : layers) {
      held.put(layer.digest(), layer.size());
    }
    return new NodeLayerInventory(node, held, Set.of(), Instant.EPOCH);
  }

  /** The nodes' numbers, as a call reads them from their entries. */
  static int[] numbers(LayerIndex index, String... nodes) {
    return Arrays.stream(nodes).map(index.nodeTable()::resolve).mapToInt(entry -> entry.number).toArray();
  }

  @Test
  void answersPerCandidateTheBytesOfPodLayersItLacks() {
    LayerIndex index = new LayerIndex(new NodeTable());
    index.put(inventory("a", X, Y));
    index.put(inventory("b", X));
    // X (10 bytes) on a and b, Y (20 bytes) on a only; a node that publishes nothing holds nothing
    assertThat(index.missingBytes(POD, numbers(index, "a", "b", "unknown"), new long[3])).containsExactly(0, 20, 30);
  }

  @Test
  void updateReplacesANodesLayersAndRemovalForgetsIt() {
    LayerIndex index = new LayerIndex(new NodeTable());
    index.put(inventory("a", X, Y));
    index.put(inventory("b", Y));
    index.put(inventory("a", X));
    index.remove("b");
    // b's number is free again; c reuses it and must not inherit b's Y
    index.put(inventory("c"));
    assertThat(index.missingBytes(POD, numbers(index, "a", "c"), new long[2])).containsExactly(20, 30);
    assertThat(index.publishes("b")).isFalse();
    assertThat(index.nodes()).isEqualTo(2);
  }

  /**
   * Random puts, re-puts and removes over a small cluster (numbers given back and reused, a table
   * that grows) answer every node's missing bytes as the inventories last put say, also for nodes
   * removed or never put, and count the nodes that publish.
   */
  @Test
  void answersAsTheLastInventoriesUnderRandomPutsAndRemoves() {
    List<Layer> pool = java.util.stream.IntStream.range(0, 8).mapToObj(i -> new Layer("sha256:%064x".formatted(i), 1L << i)).toList();
    PodLayers pod = PodLayers.of(List.of(new ImageLayers("p:1", "sha256:" + "d".repeat(64), pool.subList(1, 6))));
    for (long seed = 1; seed <= 10; seed++) {
      java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
      List<String> names = java.util.stream.IntStream.range(0, 20 + random.nextInt(300)).mapToObj(i -> "ip-10-0-%d.internal".formatted(i)).toList();
      LayerIndex index = new LayerIndex(new NodeTable());
      Map<String, Set<Layer>> expected = new java.util.HashMap<>();
      for (int op = 0; op < 30 * names.size(); op++) {
        String name = names.get(random.nextInt(names.size()));
        if (random.nextInt(3) == 0) {
          index.remove(name);
          expected.remove(name);
        } else {
          Layer[] held = pool.stream().filter(layer -> random.nextBoolean()).toArray(Layer[]::new);
          index.put(inventory(new String(name), held));
          expected.put(name, Set.of(held));
        }
      }
      long[] missing = index.missingBytes(pod, numbers(index, names.toArray(String[]::new)), new long[names.size()]);
      for (int n = 0; n < names.size(); n++) {
        Set<Layer> held = expected.getOrDefault(names.get(n), Set.of());
        long want = pod.layers().stream().filter(layer -> !held.contains(layer)).mapToLong(Layer::size).sum();
        assertThat(missing[n]).as("seed %d, %s", seed, names.get(n)).isEqualTo(want);
        assertThat(index.publishes(names.get(n))).as("seed %d, %s", seed, names.get(n)).isEqualTo(expected.containsKey(names.get(n)));
      }
      assertThat(index.nodes()).as("seed %d", seed).isEqualTo(expected.size());
    }
  }
}

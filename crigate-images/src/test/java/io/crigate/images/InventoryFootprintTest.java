package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.openjdk.jol.info.GraphLayout;

/**
 * Heap retained by inventories, measured with JOL and printed for the record: one node's own
 * inventory, and a scheduler's view of many nodes whose digests are (or are not) shared strings.
 */
class InventoryFootprintTest {

  static {
    // records hide field offsets from Unsafe; JOL then finds them by probing
    System.setProperty("jol.magicFieldOffset", "true");
  }

  private static final Instant NOW = Instant.parse("2026-01-01T00:00:00Z");

  private static String digest(int i) {
    return "sha256:%064x".formatted(i);
  }

  private static NodeLayerInventory inventory(String node, List<String> digests) {
    var layers = new HashMap<String, Long>();
    for (int i = 0; i < digests.size(); i++) {
      layers.put(digests.get(i), 10_000_000L + i);
    }
    return new NodeLayerInventory(node, layers, Set.of(), NOW);
  }

  @Test
  void bytesPerLayerOfOneNodeAndOfAClusterView() {
    int layers = 10_000;
    List<String> pool = IntStream.range(0, layers).mapToObj(InventoryFootprintTest::digest).toList();
    long single = GraphLayout.parseInstance(inventory("n", pool)).totalSize();

    // 50 nodes x 2,000 layers from one pool of 10,000: decoded JSON gives each node its own strings,
    // interned digests are shared
    int nodes = 50;
    int perNode = 2_000;
    List<NodeLayerInventory> ownStrings = IntStream.range(0, nodes).mapToObj(n -> inventory("n" + n,
        IntStream.range(0, perNode).mapToObj(i -> new String(pool.get((n * 97 + i) % layers).toCharArray())).toList())).toList();
    List<NodeLayerInventory> shared = IntStream.range(0, nodes).mapToObj(n -> inventory("n" + n,
        IntStream.range(0, perNode).mapToObj(i -> pool.get((n * 97 + i) % layers)).toList())).toList();
    long ownBytes = GraphLayout.parseInstance(ownStrings.toArray()).totalSize();
    long sharedBytes = GraphLayout.parseInstance(shared.toArray()).totalSize()
        - GraphLayout.parseInstance(pool.toArray()).totalSize();

    double perLayerSingle = (double) single / layers;
    double perLayerOwn = (double) ownBytes / (nodes * perNode);
    double perLayerShared = (double) sharedBytes / (nodes * perNode);
    System.out.printf("footprint: one node, %d layers: %d bytes = %.1f bytes/layer%n", layers, single, perLayerSingle);
    System.out.printf("footprint: %d nodes x %d layers, own digest strings: %d bytes = %.1f bytes/node-layer%n",
        nodes, perNode, ownBytes, perLayerOwn);
    System.out.printf("footprint: %d nodes x %d layers, shared digest strings: %d bytes = %.1f bytes/node-layer"
        + " (+ %.1f bytes per distinct digest)%n", nodes, perNode, sharedBytes, perLayerShared,
        (double) GraphLayout.parseInstance(pool.toArray()).totalSize() / layers);

    // a digest string is ~110 bytes on its own: sharing them must save at least that much per entry
    assertThat(perLayerOwn - perLayerShared).isGreaterThan(100);
    assertThat(perLayerSingle).isBetween(perLayerShared, perLayerOwn + 1);
  }
}

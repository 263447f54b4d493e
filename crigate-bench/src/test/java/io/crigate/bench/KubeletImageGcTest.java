package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.images.Layer;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The kubelet's image GC as the whole-chain experiment runs it on each node. */
class KubeletImageGcTest {

  private static final Layer BASE = new Layer("sha256:" + "0".repeat(64), 40);
  private static final KubeletImageGc.StoredImage A = image("a", BASE, layer("a", 20));
  private static final KubeletImageGc.StoredImage B = image("b", BASE, layer("b", 20));
  private static final KubeletImageGc.StoredImage C = image("c", layer("c", 30));

  private static Layer layer(String name, long size) {
    return new Layer("sha256:" + name.repeat(64), size);
  }

  private static KubeletImageGc.StoredImage image(String reference, Layer... layers) {
    return new KubeletImageGc.StoredImage(reference, List.of(layers));
  }

  @Test
  void belowTheHighThresholdNothingGoes() {
    // distinct layers: 40 + 20 + 20 + 30 = 110 of 130: 84.6% <= 85%
    var gc = new KubeletImageGc(130, 85, 50);
    assertThat(gc.toRemove(List.of(A, B, C), Set.of(), Map.of())).isEmpty();
  }

  @Test
  void removesTheLeastRecentlyUsedUnusedImagesUntilBelowTheLowThreshold() {
    // 110 of 120 is above 85%; low 60% = 72: c (oldest) frees 30 -> 80, a frees only its own 20
    // (b still holds the base) -> 60, below 72: b stays
    var gc = new KubeletImageGc(120, 85, 60);
    assertThat(gc.toRemove(List.of(A, B, C), Set.of(), Map.of("c", 1L, "a", 2L, "b", 3L)))
        .containsExactly("c", "a");
  }

  @Test
  void imagesInUseOrPinnedAreNeverRemoved() {
    var gc = new KubeletImageGc(1, 85, 0);
    assertThat(gc.toRemove(List.of(A, B, C), Set.of("a", "c"), Map.of())).containsExactly("b");
  }

  @Test
  void aSharedLayerIsFreedOnlyWithItsLastImage() {
    // 80 of 90 is above 85%; low 60% = 54: a frees only its own 20 (60, the base stays with b),
    // so b goes too (0); had a freed the base as well, usage would be 20 and b would stay
    var gc = new KubeletImageGc(90, 85, 60);
    assertThat(gc.toRemove(List.of(A, B), Set.of(), Map.of("a", 1L, "b", 2L))).containsExactly("a", "b");
  }
}

package io.crigate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeImageStatusTest {

  @Test
  void listsOnlyTheLargestImages() {
    Map<String, Long> images = new HashMap<>();
    for (int i = 1; i <= 60; i++) {
      images.put("img" + i + ":1", (long) i);
    }
    Map<String, Long> listed = NodeImageStatus.largest(images, NodeImageStatus.DEFAULT_MAX_IMAGES);
    // 60 images of sizes 1..60: the 50 largest are sizes 11..60, largest first
    assertThat(listed).hasSize(50).doesNotContainKey("img10:1").containsKey("img11:1");
    assertThat(listed.keySet().iterator().next()).isEqualTo("img60:1");
  }
}

package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import io.crigate.images.ImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 4's CRI annotations, end to end: images pulled into real containerd through crigate come
 * back from ListImages and ImageStatus with one {@code imageLayer.sha256:<hex>} = size annotation
 * per layer, sizes as the real registry's manifest states them.
 */
class LayerAnnotationIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig("images:\n  annotateLayers: true\n");

  @Test
  void imagesOnTheNodeCarryTheirLayersAndSizes() {
    String image = infra.baseImage();
    crigate.cri().images().pullImage(PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build());
    ImageLayers layers = new RegistryClient(RegistryClientConfig.defaults()).layers(image);
    Map<String, String> expected = layers.layers().stream()
        .collect(Collectors.toMap(layer -> "imageLayer." + layer.digest(), layer -> Long.toString(layer.size())));
    assertThat(expected).isNotEmpty();
    ImageFilter byName = ImageFilter.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build();

    // The first answer may come before the registry lookup it starts has finished: never blocked on it.
    await("ListImages annotated").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200)).untilAsserted(() ->
        assertThat(crigate.cri().images().listImages(ListImagesRequest.newBuilder().setFilter(byName).build())
            .getImagesList()).singleElement()
            .satisfies(listed -> assertThat(listed.getSpec().getAnnotationsMap()).containsAllEntriesOf(expected)));

    ImageStatusResponse status = crigate.cri().images().imageStatus(
        ImageStatusRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build());
    assertThat(status.getImage().getSpec().getAnnotationsMap()).containsAllEntriesOf(expected);
  }

  /**
   * The seed's own check (004: pull debian and python, which is built on it, then list the images):
   * the two annotation maps have exactly the base's layers as common keys. Here the demo image is
   * the base plus one layer of its own.
   */
  @Test
  void anImageBuiltOnAnotherSharesItsBaseLayersAnnotationKeys() {
    Map<String, String> base = annotationsOnceAnnotated(infra.baseImage());
    Map<String, String> demo = annotationsOnceAnnotated(infra.demoImage());
    Set<String> common = new HashSet<>(layerKeys(base));
    common.retainAll(layerKeys(demo));
    assertThat(common).isNotEmpty().isEqualTo(layerKeys(base));
    assertThat(layerKeys(demo)).hasSize(common.size() + 1);
    common.forEach(key -> assertThat(demo.get(key)).as(key).isEqualTo(base.get(key)));
  }

  private static Map<String, String> annotationsOnceAnnotated(String image) {
    crigate.cri().images().pullImage(PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build());
    ImageStatusRequest request = ImageStatusRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(image)).build();
    return await(image + " annotated").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(200))
        .until(() -> crigate.cri().images().imageStatus(request).getImage().getSpec().getAnnotationsMap(),
            annotations -> !layerKeys(annotations).isEmpty());
  }

  private static Set<String> layerKeys(Map<String, String> annotations) {
    return annotations.keySet().stream().filter(key -> key.startsWith("imageLayer.sha256:")).collect(Collectors.toSet());
  }
}

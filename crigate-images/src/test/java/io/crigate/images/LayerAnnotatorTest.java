package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.Image;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ImageStatusResponse;
import io.crigate.api.cri.v1.ListImagesResponse;
import io.crigate.spi.ImageRef;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Annotating CRI image answers from the real local registry. */
class LayerAnnotatorTest {

  private final ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor();
  private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
  private final AtomicInteger registryCalls = new AtomicInteger();
  private ImageLayerResolver resolver;
  private ImageLayers layersA;
  private Image imageA;

  @BeforeEach
  void setUp() {
    LocalRegistry.fromEnv();
    var client = new RegistryClient(RegistryClientConfig.defaults());
    layersA = client.layers(LocalRegistry.image("CRIGATE_IMAGE_A"));
    resolver = new ImageLayerResolver(ref -> {
      registryCalls.incrementAndGet();
      return client.layers(ref);
    }, executor, clock, 100);
    imageA = runtimeImage("sha256:" + "a".repeat(64), ImageRef.parse(layersA.reference()).name() + "@" + layersA.digest());
  }

  @AfterEach
  void tearDown() {
    executor.shutdownNow();
  }

  /** An image as containerd reports it: id is the config digest, repo digest names the manifest. */
  private static Image runtimeImage(String id, String... repoDigests) {
    return Image.newBuilder().setId(id).addAllRepoDigests(List.of(repoDigests))
        .setSpec(ImageSpec.newBuilder().setImage(id)).build();
  }

  private Map<String, String> expectedAnnotations() {
    return layersA.layers().stream().collect(Collectors.toMap(
        layer -> "imageLayer." + layer.digest(), layer -> Long.toString(layer.size())));
  }

  @Test
  void theFirstListMissesThenLaterListsCarryOneAnnotationPerLayer() {
    var annotator = new ListImagesAnnotator(resolver);
    var response = ListImagesResponse.newBuilder().addImages(imageA).build();

    ListImagesResponse first = annotator.apply(response);
    resolver.resolve(imageA).join();
    ListImagesResponse later = annotator.apply(response);

    assertThat(first).isEqualTo(response);
    assertThat(later.getImages(0).getSpec().getAnnotationsMap()).isEqualTo(expectedAnnotations());
    assertThat(later.getImages(0).getId()).isEqualTo(imageA.getId());
    assertThat(registryCalls).hasValue(1);
  }

  @Test
  void imageStatusIsAnnotatedTheSameWayAndAnAbsentImageIsLeftAlone() {
    var annotator = new ImageStatusAnnotator(resolver);
    resolver.resolve(imageA).join();

    ImageStatusResponse status = annotator.apply(ImageStatusResponse.newBuilder().setImage(imageA).build());
    ImageStatusResponse absent = annotator.apply(ImageStatusResponse.getDefaultInstance());

    assertThat(status.getImage().getSpec().getAnnotationsMap()).isEqualTo(expectedAnnotations());
    assertThat(absent).isEqualTo(ImageStatusResponse.getDefaultInstance());
  }

  @Test
  void anUnreachableRegistryLeavesTheAnswerUnchangedAndIsNotAskedAgainAtOnce() {
    Image orphan = runtimeImage("sha256:" + "b".repeat(64), "127.0.0.1:9/gone@sha256:" + "c".repeat(64));
    var annotator = new ListImagesAnnotator(resolver);
    var response = ListImagesResponse.newBuilder().addImages(orphan).addImages(imageA).build();

    annotator.apply(response);
    assertThat(resolver.resolve(orphan).join()).isEmpty();
    resolver.resolve(imageA).join();
    ListImagesResponse later = annotator.apply(response);

    assertThat(later.getImages(0)).isEqualTo(orphan);
    assertThat(later.getImages(1).getSpec().getAnnotationsMap()).isEqualTo(expectedAnnotations());
    // one lookup each; the failed one waits for its retry time
    assertThat(registryCalls).hasValue(2);
    clock.advance(ImageLayerResolver.RETRY_AFTER.plusSeconds(1));
    assertThat(resolver.resolve(orphan).join()).isEmpty();
    assertThat(registryCalls).hasValue(3);
  }

  @Test
  void imagesWithoutRepoDigestOrAlreadyAnnotatedAreLeftAsTheRuntimeSentThem() {
    Image local = runtimeImage("sha256:" + "d".repeat(64));
    Image selfAnnotated = imageA.toBuilder().setSpec(imageA.getSpec().toBuilder()
        .putAnnotations("imageLayer.sha256:" + "e".repeat(64), "7")).build();
    resolver.resolve(imageA).join();
    var response = ListImagesResponse.newBuilder().addImages(local).addImages(selfAnnotated).build();

    assertThat(new ListImagesAnnotator(resolver).apply(response)).isEqualTo(response);
  }

  @Test
  void annotationsParseBackToTheLayers() {
    resolver.resolve(imageA).join();
    Image annotated = new ListImagesAnnotator(resolver).apply(ListImagesResponse.newBuilder().addImages(imageA).build()).getImages(0);

    assertThat(LayerAnnotations.parse(annotated.getSpec().getAnnotationsMap())).containsExactlyInAnyOrderElementsOf(layersA.layers());
  }
}

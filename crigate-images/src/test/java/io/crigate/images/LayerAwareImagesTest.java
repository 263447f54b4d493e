package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageBackend;
import io.crigate.spi.ImageObserver;
import io.crigate.spi.ImageRef;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * The image extension as {@code crigate serve} builds it from the {@code images} settings: real
 * registry for layers, fabric8's mock API server (CRUD) for publication.
 */
@EnableKubernetesMockClient(crud = true)
class LayerAwareImagesTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  KubernetesClient client;

  /** A node whose runtime holds exactly image A, as containerd reports it (by repo digest). */
  private static final class NodeWithImageA implements ImageBackend {
    private final Image image;

    NodeWithImageA(ImageLayers a) {
      image = Image.newBuilder().setId(a.digest())
          .addRepoDigests(ImageRef.parse(a.reference()).name() + "@" + a.digest()).build();
    }

    @Override
    public ListImagesResponse listImages(ListImagesRequest request) {
      return ListImagesResponse.newBuilder().addImages(image).build();
    }

    @Override
    public ImageStatusResponse imageStatus(ImageStatusRequest request) {
      return ImageStatusResponse.newBuilder().setImage(image).build();
    }

    @Override
    public PullImageResponse pullImage(PullImageRequest request) {
      throw new UnsupportedOperationException("the extension must never pull");
    }

    @Override
    public RemoveImageResponse removeImage(RemoveImageRequest request) {
      throw new UnsupportedOperationException("the extension must never remove");
    }

    @Override
    public ImageFsInfoResponse imageFsInfo(ImageFsInfoRequest request) {
      return ImageFsInfoResponse.getDefaultInstance();
    }
  }

  private static JsonNode settings(String json) throws Exception {
    return JSON.readTree(json);
  }

  @Test
  void absentSectionObservesNothing() {
    ImageObserver.Factory factory = LayerAwareImages.factory(MissingNode.getInstance(), "node-1", () -> client);

    assertThat(factory.create(null)).isSameAs(ImageObserver.NONE);
  }

  @Test
  void unknownKeyIsNamed() {
    assertThatThrownBy(() -> LayerAwareImages.factory(settings("{\"anotateLayers\": true}"), "n", () -> client))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("'anotateLayers'").hasMessageContaining("annotateLayers, publish, registry");
  }

  @Test
  void publishingNeedsANodeName() {
    assertThatThrownBy(() -> LayerAwareImages.factory(settings("{\"publish\": {}}"), null, () -> client))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("NODE_NAME");
  }

  @Test
  void annotatesAnswersAndPublishesTheNodesLayers() throws Exception {
    ImageLayers a = new RegistryClient(RegistryClientConfig.defaults()).layers(LocalRegistry.image("CRIGATE_IMAGE_A"));
    client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-1").endMetadata().build()).create();
    NodeWithImageA node = new NodeWithImageA(a);

    try (ImageObserver observer = LayerAwareImages.factory(settings("{\"publish\": {}}"), "node-1", () -> client)
        .create(node)) {
      Map<String, String> expected = a.layers().stream().collect(Collectors.toMap(
          layer -> "imageLayer." + layer.digest(), layer -> Long.toString(layer.size())));
      ListImagesResponse plain = node.listImages(ListImagesRequest.getDefaultInstance());
      await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
          assertThat(observer.listImages(plain).getImages(0).getSpec().getAnnotationsMap()).containsAllEntriesOf(expected));

      await().atMost(Duration.ofSeconds(20)).until(() -> client.resources(NodeImageLayers.class).withName("node-1").get() != null);
      NodeLayerInventory published = NodeImageLayersCodec.fromResource(
          client.resources(NodeImageLayers.class).withName("node-1").get());
      assertThat(published.layers()).isEqualTo(a.layers().stream().collect(Collectors.toMap(Layer::digest, Layer::size)));
    }
  }

  @Test
  void annotationsCanBeTurnedOff() throws Exception {
    ImageLayers a = new RegistryClient(RegistryClientConfig.defaults()).layers(LocalRegistry.image("CRIGATE_IMAGE_A"));
    NodeWithImageA node = new NodeWithImageA(a);

    try (ImageObserver observer = LayerAwareImages.factory(settings("{\"annotateLayers\": false}"), null, () -> client)
        .create(node)) {
      ListImagesResponse plain = node.listImages(ListImagesRequest.getDefaultInstance());
      // Give a background lookup, were one started, the time to land before looking.
      await().pollDelay(Duration.ofMillis(500)).until(() -> true);
      assertThat(observer.listImages(plain)).isSameAs(plain);
    }
  }
}

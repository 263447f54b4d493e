package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ImageStatusRequest;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.cli.ctl.CriClient;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeImageLayers;
import io.crigate.images.RegistryClient;
import io.crigate.images.RegistryClientConfig;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One node of the whole-chain experiment against real components: a {@code crigate serve} (the
 * built bin/crigate) in front of a containerd 1.6 of its own, publishing to fabric8's mock API
 * server, with the images of the local registry. Needs the infra env (scripts/infra/up.sh).
 */
class ChainNodeIT {

  private static final String NODE = "chain-it";
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @TempDir
  static Path dir;

  static String containerd;
  static ChainApiServer api;
  static ChainNode node;
  static CriClient direct;
  static ImageLayers a;
  static ImageLayers b;

  @BeforeAll
  static void start() throws Exception {
    // the infra dir outlives a run: an earlier run's images would be collected and counted here
    containerd("remove");
    containerd("start");
    containerd = "unix://%s/containerd-%s/containerd.sock".formatted(env("CRIGATE_INFRA_DIR"), NODE);
    api = ChainApiServer.start(dir.resolve("api"));
    api.client().nodes().resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build()).create();
    RegistryClient registry = new RegistryClient(RegistryClientConfig.defaults());
    a = registry.layers(env("CRIGATE_IMAGE_A"));
    b = registry.layers(env("CRIGATE_IMAGE_B"));
    // a store of one byte: every start is followed by collecting every image no container uses
    node = ChainNode.start(ROOT, dir.resolve("node"), NODE, containerd, api.kubeconfig(), registry,
        new KubeletImageGc(1, 85, 80), env("CRIGATE_IMAGE_PAUSE"));
    direct = CriClient.connect(containerd);
  }

  @AfterAll
  static void stop() throws Exception {
    if (direct != null) {
      direct.close();
    }
    if (node != null) {
      node.close();
    }
    if (api != null) {
      api.close();
    }
    containerd("remove");
  }

  private static String env(String name) {
    return Objects.requireNonNull(System.getenv(name), name + " is not set: source the infra env (scripts/infra/up.sh)");
  }

  private static void containerd(String action) throws IOException, InterruptedException {
    Process process = new ProcessBuilder("bash", ROOT.resolve("scripts/infra/containerd.sh").toString(), action, NODE)
        .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(process.waitFor()).as("containerd.sh %s %s", action, NODE).isZero();
  }

  private static boolean present(ImageLayers image) {
    return direct.images(Duration.ofSeconds(10)).imageStatus(ImageStatusRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage(image.reference())).build()).hasImage();
  }

  @Test
  void startsAPodThroughCrigatePublishesItsLayersAndGarbageCollectsWhatNoContainerUses() throws Exception {
    ChainNode.StartedPod first = node.startPod("pod-a", a.reference(), 60);
    assertThat(first.pulled()).isTrue();
    assertThat(first.imageStep().pulling()).isPositive().isLessThanOrEqualTo(first.startLatency());
    assertThat(present(a)).isTrue();
    // the published inventory names the layers of the image the pod runs
    await().atMost(Duration.ofSeconds(30)).until(() -> {
      NodeImageLayers published = api.client().resources(NodeImageLayers.class).withName(NODE).get();
      return published != null && a.layers().stream().map(Layer::digest).allMatch(published.getSpec().layers()::containsKey);
    });
    node.stopPod(first);
    assertThat(direct.runtime(Duration.ofSeconds(10)).listContainers(ListContainersRequest.getDefaultInstance())
        .getContainersList()).noneMatch(c -> c.getId().equals(first.containerId()));
    assertThat(direct.runtime(Duration.ofSeconds(10)).listPodSandbox(ListPodSandboxRequest.getDefaultInstance())
        .getItemsList()).noneMatch(s -> s.getId().equals(first.sandboxId()));

    // b's start pushes the store over its threshold: a, unused now, goes; b, running, and the pinned
    // sandbox image stay
    ChainNode.StartedPod second = node.startPod("pod-b", b.reference(), 60);
    assertThat(second.pulled()).isTrue();
    assertThat(present(a)).isFalse();
    assertThat(present(b)).isTrue();
    assertThat(node.gcRemovals()).isEqualTo(1);
    assertThat(node.imageStatus()).containsOnlyKeys(b.reference(), env("CRIGATE_IMAGE_PAUSE"));

    // a second pod of b finds its image: no pull
    ChainNode.StartedPod third = node.startPod("pod-b2", b.reference(), 60);
    assertThat(third.pulled()).isFalse();
    assertThat(third.imageStep()).isEqualTo(ChainNode.ImageStep.PRESENT);
    assertThat(third.startLatency()).isPositive();
    assertThat(node.gcRemovals()).as("b runs, the sandbox image is pinned: nothing else to collect").isEqualTo(1);
    node.stopPod(second);
    node.stopPod(third);
  }
}

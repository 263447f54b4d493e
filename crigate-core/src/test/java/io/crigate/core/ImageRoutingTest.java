package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.*;
import io.crigate.testsupport.InMemoryBackend;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where a pull lands when the kubelet does not name a handler on the image (no KEP-4216 gate). */
class ImageRoutingTest {

  @TempDir Path stateDir;
  private RouterHarness crigate;

  @BeforeEach
  void start() {
    crigate = RouterHarness.start(stateDir);
  }

  @AfterEach
  void close() {
    crigate.close();
  }

  private static PullImageRequest pullFor(String podName) {
    return PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("registry.local/app:v1"))
        .setSandboxConfig(PodSandboxConfig.newBuilder().setMetadata(
            PodSandboxMetadata.newBuilder().setName(podName).setNamespace("default").setUid("uid-" + podName)))
        .build();
  }

  private static boolean holdsImage(InMemoryBackend backend) {
    return backend.listImages(ListImagesRequest.getDefaultInstance()).getImagesCount() > 0;
  }

  @Test
  void pullNamingAPodOnAnotherBackendLandsThere() {
    crigate.runPod("fast-pod", "fast");

    crigate.images.pullImage(pullFor("fast-pod"));

    // The pod runs on beta (handler fast, known to beta as runsc): its image must be pulled there.
    assertThat(holdsImage(crigate.beta)).isTrue();
    assertThat(crigate.beta.lastHandler()).isEqualTo("runsc");
    assertThat(holdsImage(crigate.alpha)).isFalse();
  }

  @Test
  void anUnparsableReferenceIsInvalidArgumentFromCrigateWithTheReason() {
    for (String bad : new String[] {"Registry.local/App:v1", "registry.local/app:bad tag", "app@sha256:short", "a//b"}) {
      PullImageRequest pull = PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(bad)).build();
      assertThatThrownBy(() -> crigate.images.pullImage(pull)).as(bad).isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
        assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
        assertThat(e.getStatus().getDescription()).startsWith("image.image: image reference " + bad + ": ");
      });
    }
    assertThat(holdsImage(crigate.alpha)).isFalse();
  }

  @Test
  void pullNamingAnUnknownPodGoesToTheDefaultBackend() {
    crigate.images.pullImage(pullFor("never-created"));

    assertThat(holdsImage(crigate.alpha)).isTrue();
    assertThat(holdsImage(crigate.beta)).isFalse();
  }

  @Test
  void anExplicitImageHandlerWinsOverThePod() {
    crigate.runPod("fast-pod", "fast");
    PullImageRequest pull = pullFor("fast-pod");

    crigate.images.pullImage(pull.toBuilder()
        .setImage(pull.getImage().toBuilder().setRuntimeHandler(HandlerBinding.DEFAULT_HANDLER)).build());

    assertThat(holdsImage(crigate.alpha)).isTrue();
    assertThat(holdsImage(crigate.beta)).isFalse();
  }
}

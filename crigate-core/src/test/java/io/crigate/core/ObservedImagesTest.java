package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageBackend;
import io.crigate.spi.ImageObserver;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The image extension point: what an {@link ImageObserver} sees and what callers then receive. */
class ObservedImagesTest {

  private static final String MARK = "test.crigate.io/seen";

  @TempDir Path stateDir;
  private final List<String> events = new ArrayList<>();
  private final AtomicReference<ImageBackend> nodeImages = new AtomicReference<>();
  private RouterHarness crigate;

  /** Marks every image it passes and records the pull/remove events in order. */
  private final class MarkingObserver implements ImageObserver {
    @Override
    public ListImagesResponse listImages(ListImagesResponse response) {
      ListImagesResponse.Builder marked = response.toBuilder();
      marked.getImagesBuilderList().forEach(image -> image.getSpecBuilder().putAnnotations(MARK, "yes"));
      return marked.build();
    }

    @Override
    public ImageStatusResponse imageStatus(ImageStatusResponse response) {
      ImageStatusResponse.Builder marked = response.toBuilder();
      marked.getImageBuilder().getSpecBuilder().putAnnotations(MARK, "yes");
      return marked.build();
    }

    /** Records how many images alpha held at that moment, to show the pull had not reached it yet. */
    @Override
    public void pullStarted(String image) {
      events.add("started " + image + " (alpha has " + imagesOnAlpha() + ")");
    }

    private String imagesOnAlpha() {
      try {
        return Integer.toString(crigate.alpha.listImages(ListImagesRequest.getDefaultInstance()).getImagesCount());
      } catch (CrigateException.Unavailable down) {
        return "none, it is down";
      }
    }

    @Override
    public void pullFinished(String image) {
      events.add("finished " + image);
    }

    @Override
    public void imageRemoved(String image) {
      events.add("removed " + image);
    }
  }

  @AfterEach
  void close() {
    crigate.close();
  }

  private void start() {
    crigate = RouterHarness.start(stateDir, node -> {
      nodeImages.set(node);
      return new MarkingObserver();
    });
  }

  private void pull(String image, String handler) {
    crigate.images.pullImage(PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage(image).setRuntimeHandler(handler)).build());
  }

  @Test
  void pullIsAnnouncedBeforeItReachesTheBackendAndFinishedAfter() {
    start();
    pull("registry.local/app:v1", "");

    assertThat(events).containsExactly("started registry.local/app:v1 (alpha has 0)", "finished registry.local/app:v1");
  }

  @Test
  void rejectedPullIsNeverAnnounced() {
    start();
    assertThatThrownBy(() -> pull("registry.local/app:v1", "no-such-handler"))
        .isInstanceOf(StatusRuntimeException.class);

    // Routing rejects the handler before any pull starts, so the observer hears nothing.
    assertThat(events).isEmpty();
  }

  @Test
  void failedPullIsStillFinished() {
    start();
    crigate.alpha.setAvailable(false);

    assertThatThrownBy(() -> pull("registry.local/app:v1", "")).isInstanceOf(StatusRuntimeException.class);

    assertThat(events).containsExactly("started registry.local/app:v1 (alpha has none, it is down)",
        "finished registry.local/app:v1");
  }

  @Test
  void listingsAndStatusCarryTheObserversAnnotations() {
    start();
    pull("registry.local/app:v1", "");
    pull("registry.local/tool:v2", "fast");

    List<Image> listed = crigate.images.listImages(ListImagesRequest.getDefaultInstance()).getImagesList();
    assertThat(listed).hasSize(2).allSatisfy(image -> assertThat(image.getSpec().getAnnotationsMap()).containsEntry(MARK, "yes"));

    List<Image> streamed = new ArrayList<>();
    for (Iterator<StreamImagesResponse> it = crigate.images.streamImages(StreamImagesRequest.getDefaultInstance()); it.hasNext(); ) {
      streamed.addAll(it.next().getImagesList());
    }
    assertThat(streamed).isEqualTo(listed);

    ImageStatusResponse status = crigate.images.imageStatus(ImageStatusRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("registry.local/app:v1")).build());
    assertThat(status.getImage().getSpec().getAnnotationsMap()).containsEntry(MARK, "yes");
  }

  @Test
  void observerListsTheMergedNodeImagesWithoutItsOwnAnnotations() {
    start();
    pull("registry.local/app:v1", "");
    pull("registry.local/tool:v2", "fast");

    List<Image> node = nodeImages.get().listImages(ListImagesRequest.getDefaultInstance()).getImagesList();

    // One image on each backend: the observer must see both, as the kubelet does, unmarked.
    assertThat(node).extracting(image -> image.getRepoTags(0))
        .containsExactlyInAnyOrder("registry.local/app:v1", "registry.local/tool:v2");
    assertThat(node).allSatisfy(image -> assertThat(image.getSpec().getAnnotationsMap()).doesNotContainKey(MARK));
  }

  @Test
  void removalIsAnnouncedAfterTheBackendRemovedTheImage() {
    start();
    pull("registry.local/app:v1", "");
    events.clear();

    crigate.images.removeImage(RemoveImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("registry.local/app:v1")).build());

    assertThat(events).containsExactly("removed registry.local/app:v1");
    assertThat(crigate.alpha.listImages(ListImagesRequest.getDefaultInstance()).getImagesList()).isEmpty();
  }
}

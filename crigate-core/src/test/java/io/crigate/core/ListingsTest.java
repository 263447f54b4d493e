package io.crigate.core;

import static io.crigate.core.CriRoutingTest.catchStatus;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.*;
import io.crigate.testsupport.InMemoryBackend;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Lists merged from two backends that ignore filters, so every filter seen here is core's. The pods:
 * web (alpha, READY, app=web), db (alpha, stopped, app=db), job (beta, READY, app=job); one
 * container each, named after its pod; web's container runs, the others are only created.
 */
class ListingsTest {

  @TempDir static Path stateDir;
  static RouterHarness crigate;
  static String web;
  static String db;
  static String job;
  static String webContainer;
  static String dbContainer;
  static String jobContainer;

  @BeforeAll
  static void start() {
    crigate = RouterHarness.start(stateDir);
    web = crigate.runPod("web", "");
    db = crigate.runPod("db", "");
    job = crigate.runPod("job", "fast");
    webContainer = crigate.createContainer(web, "web");
    dbContainer = crigate.createContainer(db, "db");
    jobContainer = crigate.createContainer(job, "job");
    crigate.runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(webContainer).build());
    crigate.runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(db).build());
  }

  @AfterAll
  static void stop() {
    crigate.close();
  }

  record SandboxCase(String name, PodSandboxFilter filter, List<String> expectedPods) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<SandboxCase> sandboxFilters() {
    return Stream.of(
        // No filter: both of alpha's pods and beta's one, merged.
        new SandboxCase("no filter", PodSandboxFilter.getDefaultInstance(), List.of("web", "db", "job")),
        new SandboxCase("id", PodSandboxFilter.newBuilder().setId(job).build(), List.of("job")),
        // "alpha-" prefixes every id alpha chose, as containerd's truncated ids do.
        new SandboxCase("id prefix", PodSandboxFilter.newBuilder().setId("alpha-").build(), List.of("web", "db")),
        new SandboxCase("state ready", PodSandboxFilter.newBuilder()
            .setState(PodSandboxStateValue.newBuilder().setState(PodSandboxState.SANDBOX_READY)).build(), List.of("web", "job")),
        new SandboxCase("label", PodSandboxFilter.newBuilder().putLabelSelector("app", "db").build(), List.of("db")),
        new SandboxCase("label and state disagree", PodSandboxFilter.newBuilder().putLabelSelector("app", "db")
            .setState(PodSandboxStateValue.newBuilder().setState(PodSandboxState.SANDBOX_READY)).build(), List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sandboxFilters")
  void listPodSandboxMergesAndFilters(SandboxCase c) {
    List<PodSandbox> items = crigate.runtime.listPodSandbox(ListPodSandboxRequest.newBuilder().setFilter(c.filter()).build()).getItemsList();
    assertThat(items).extracting(sandbox -> sandbox.getMetadata().getName()).containsExactlyInAnyOrderElementsOf(c.expectedPods());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("sandboxFilters")
  void streamPodSandboxesAnswersTheSameAsTheList(SandboxCase c) {
    List<PodSandbox> streamed = new ArrayList<>();
    crigate.runtime.streamPodSandboxes(StreamPodSandboxesRequest.newBuilder().setFilter(c.filter()).build())
        .forEachRemaining(chunk -> streamed.addAll(chunk.getPodSandboxesList()));
    assertThat(streamed).extracting(sandbox -> sandbox.getMetadata().getName()).containsExactlyInAnyOrderElementsOf(c.expectedPods());
  }

  record ContainerCase(String name, ContainerFilter filter, List<String> expectedContainers) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<ContainerCase> containerFilters() {
    return Stream.of(
        new ContainerCase("no filter", ContainerFilter.getDefaultInstance(), List.of("web", "db", "job")),
        new ContainerCase("pod sandbox id", ContainerFilter.newBuilder().setPodSandboxId(job).build(), List.of("job")),
        new ContainerCase("state running", ContainerFilter.newBuilder()
            .setState(ContainerStateValue.newBuilder().setState(ContainerState.CONTAINER_RUNNING)).build(), List.of("web")),
        new ContainerCase("label", ContainerFilter.newBuilder().putLabelSelector("container", "db").build(), List.of("db")),
        new ContainerCase("id prefix", ContainerFilter.newBuilder().setId("beta-").build(), List.of("job")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("containerFilters")
  void listContainersMergesAndFilters(ContainerCase c) {
    List<Container> items = crigate.runtime.listContainers(ListContainersRequest.newBuilder().setFilter(c.filter()).build()).getContainersList();
    assertThat(items).extracting(container -> container.getMetadata().getName()).containsExactlyInAnyOrderElementsOf(c.expectedContainers());
  }

  @Test
  void containerStatsFilterBySandboxUsesTheOwnershipRecords() {
    List<ContainerStats> stats = crigate.runtime.listContainerStats(ListContainerStatsRequest.newBuilder()
        .setFilter(ContainerStatsFilter.newBuilder().setPodSandboxId(db)).build()).getStatsList();
    assertThat(stats).extracting(s -> s.getAttributes().getId()).containsExactly(dbContainer);
  }

  @Test
  void podSandboxStatsMergeAndFilterByLabel() {
    List<PodSandboxStats> stats = crigate.runtime.listPodSandboxStats(ListPodSandboxStatsRequest.newBuilder()
        .setFilter(PodSandboxStatsFilter.newBuilder().putLabelSelector("app", "job")).build()).getStatsList();
    assertThat(stats).extracting(s -> s.getAttributes().getId()).containsExactly(job);
  }

  @Test
  void aBackendAnsweringUnimplementedContributesNothing() {
    // InMemoryBackend does not offer pod sandbox metrics: both backends answer Unimplemented.
    assertThat(crigate.runtime.listPodSandboxMetrics(ListPodSandboxMetricsRequest.getDefaultInstance()).getPodMetricsList()).isEmpty();
  }

  @Test
  void aDownBackendThatOwnsSandboxesFailsTheListNamingIt() {
    crigate.beta.setAvailable(false);
    try {
      StatusRuntimeException e = catchStatus(() -> crigate.runtime.listContainers(ListContainersRequest.getDefaultInstance()));
      assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
      assertThat(e.getStatus().getDescription()).contains("beta", "ListContainers");
    } finally {
      crigate.beta.setAvailable(true);
    }
  }

  @Test
  void aDownBackendThatOwnsNothingIsSkipped(@TempDir Path otherStateDir) {
    try (RouterHarness empty = RouterHarness.start(otherStateDir)) {
      String pod = empty.runPod("only", "");
      empty.beta.setAvailable(false);
      assertThat(empty.runtime.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList())
          .extracting(PodSandbox::getId).containsExactly(pod);
    }
  }

  @Test
  void imagesAreMergedOncePerIdAndFiltered() {
    for (String handler : List.of("", "fast")) {
      crigate.images.pullImage(PullImageRequest.newBuilder()
          .setImage(ImageSpec.newBuilder().setImage("registry.local/shared").setRuntimeHandler(handler)).build());
    }
    crigate.images.pullImage(PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("registry.local/only-beta").setRuntimeHandler("fast")).build());
    assertThat(crigate.beta.lastHandler()).isEqualTo("runsc");

    List<Image> all = crigate.images.listImages(ListImagesRequest.getDefaultInstance()).getImagesList();
    // shared is on both backends with one id, so it appears once.
    assertThat(all).extracting(image -> List.copyOf(image.getRepoTagsList())).containsExactlyInAnyOrder(
        List.of("registry.local/shared"), List.of("registry.local/only-beta"));

    List<Image> filtered = crigate.images.listImages(ListImagesRequest.newBuilder()
        .setFilter(ImageFilter.newBuilder().setImage(ImageSpec.newBuilder().setImage("registry.local/only-beta"))).build()).getImagesList();
    assertThat(filtered).extracting(Image::getId).containsExactly(InMemoryBackend.imageId("registry.local/only-beta"));
  }

  @Test
  void imageFsInfoListsEveryBackendDefaultFirst() {
    assertThat(crigate.images.imageFsInfo(ImageFsInfoRequest.getDefaultInstance()).getImageFilesystemsList())
        .extracting(usage -> usage.getFsId().getMountpoint()).containsExactly("/var/lib/alpha", "/var/lib/beta");
  }

  @Test
  void streamedListsComeInChunks(@TempDir Path otherStateDir) {
    try (RouterHarness many = RouterHarness.start(otherStateDir)) {
      int pods = Replies.STREAM_CHUNK_ITEMS + 1;
      for (int i = 0; i < pods; i++) {
        many.runPod("pod-" + i, i % 2 == 0 ? "" : "fast");
      }
      Iterator<StreamPodSandboxesResponse> chunks = many.runtime.streamPodSandboxes(StreamPodSandboxesRequest.getDefaultInstance());
      List<Integer> sizes = new ArrayList<>();
      chunks.forEachRemaining(chunk -> sizes.add(chunk.getPodSandboxesCount()));
      // 101 pods in chunks of 100: one full chunk and one with the last pod.
      assertThat(sizes).containsExactly(Replies.STREAM_CHUNK_ITEMS, 1);
    }
  }
}

package io.crigate.backend.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.Backend;
import io.crigate.spi.CrigateException;
import io.crigate.spi.InitContext;
import io.crigate.transport.EventLoops;
import io.grpc.Context;
import io.grpc.Deadline;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Drives the backend over a real unix socket against a scripted runtime. */
class RemoteCriBackendTest {

  @TempDir Path dir;
  private Path socket;
  private final ScriptedRuntime runtime = new ScriptedRuntime();
  private final ScriptedImages images = new ScriptedImages();
  private UnixSocketRuntimeServer server;
  private Backend backend;
  private final ScheduledExecutorService deadlineTimer = Executors.newSingleThreadScheduledExecutor();
  private final EventLoopGroup eventLoops = EventLoops.epoll(1, "test-io");

  @BeforeEach
  void createBackendBeforeAnyServerExists() {
    socket = dir.resolve("cri.sock");
    backend = new RemoteCriBackendFactory().create(new InitContext("edge",
        JsonNodeFactory.instance.objectNode().put("endpoint", "unix://" + socket), dir, null, Clock.systemUTC(), eventLoops));
  }

  @AfterEach
  void close() throws InterruptedException {
    backend.close();
    EventLoops.shutdown(eventLoops, 1);
    deadlineTimer.shutdownNow();
    if (server != null) {
      server.close();
    }
  }

  private void startRuntime() throws Exception {
    server = UnixSocketRuntimeServer.start(socket, runtime, images);
  }

  @Test
  void forwardsRequestsAndResponsesUnchanged() throws Exception {
    startRuntime();

    RunPodSandboxResponse pod = backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(PodSandboxConfig.newBuilder().setMetadata(PodSandboxMetadata.newBuilder().setName("web")))
        .setRuntimeHandler("gpu")
        .build());
    PullImageResponse image = backend.pullImage(PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("127.0.0.1:5000/x:v1")).build());

    // The scripted runtime answers "<handler>/<pod name>" and "<image>@pulled".
    assertThat(pod.getPodSandboxId()).isEqualTo("gpu/web");
    assertThat(image.getImageRef()).isEqualTo("127.0.0.1:5000/x:v1@pulled");
  }

  /** containerd 1.6's words when its snapshot collector deleted the parent an unpack was building on. */
  private static final Status LOST_PARENT = Status.NOT_FOUND.withDescription("failed to pull and unpack image "
      + "\"127.0.0.1:5000/chain/js-1:v1\": failed to prepare extraction snapshot \"extract-457500715-Fx0l sha256:f5c8\": "
      + "parent snapshot sha256:05a8 does not exist: not found");

  @Test
  void aPullLostToTheRuntimesSnapshotCollectorIsPulledAgainOnce() throws Exception {
    startRuntime();
    images.failures.add(LOST_PARENT);

    PullImageResponse pulled = backend.pullImage(PullImageRequest.newBuilder()
        .setImage(ImageSpec.newBuilder().setImage("127.0.0.1:5000/chain/js-1:v1")).build());

    assertThat(pulled.getImageRef()).isEqualTo("127.0.0.1:5000/chain/js-1:v1@pulled");
    assertThat(images.pulls).hasValue(2);
  }

  @Test
  void aSecondLossAndEveryOtherPullFailureReachTheCallerWithoutAnotherPull() throws Exception {
    startRuntime();
    images.failures.add(LOST_PARENT);
    images.failures.add(LOST_PARENT);
    PullImageRequest pull = PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage("r/x:v1")).build();

    assertThatThrownBy(() -> backend.pullImage(pull)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getDescription()).contains("parent snapshot"));
    assertThat(images.pulls).hasValue(2);

    images.failures.add(Status.NOT_FOUND.withDescription("failed to resolve reference \"r/x:v1\": not found"));
    assertThatThrownBy(() -> backend.pullImage(pull)).isInstanceOfSatisfying(StatusRuntimeException.class,
        e -> assertThat(e.getStatus().getDescription()).startsWith("failed to resolve reference"));
    assertThat(images.pulls).hasValue(3);
  }

  @Test
  void passesTheRuntimesOwnStatusThroughUnchanged() throws Exception {
    startRuntime();

    assertThatThrownBy(() -> backend.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId("gone").build()))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.NOT_FOUND);
          assertThat(e.getStatus().getDescription()).isEqualTo("an error occurred when try to find sandbox \"gone\"");
        });
  }

  @Test
  void anAbsentRuntimeIsUnavailableNamingTheBackendThenServesOnceItIsBack() throws Exception {
    assertThatThrownBy(() -> backend.version(VersionRequest.getDefaultInstance()))
        .isInstanceOf(CrigateException.Unavailable.class)
        .hasMessageContaining("edge")
        .hasMessageContaining("unix://" + socket)
        .hasMessageContaining("Version");

    startRuntime();

    await().ignoreException(CrigateException.Unavailable.class)
        .until(() -> backend.version(VersionRequest.getDefaultInstance()).getRuntimeName().equals("scripted"));
  }

  @Test
  void theCallersDeadlineReachesTheRuntime() throws Exception {
    startRuntime();
    Deadline callerDeadline = Deadline.after(30, TimeUnit.SECONDS);

    Context.current().withDeadline(callerDeadline, deadlineTimer).run(() -> backend.version(VersionRequest.getDefaultInstance()));

    assertThat(runtime.lastDeadline.get()).isNotNull();
    assertThat(runtime.lastDeadline.get().timeRemaining(TimeUnit.MILLISECONDS))
        .isPositive()
        .isLessThanOrEqualTo(callerDeadline.timeRemaining(TimeUnit.MILLISECONDS) + 1000);
  }

  @Test
  void aRuntimeThatNeverAnswersEndsAtTheCallersDeadlineNotAsUnavailable() throws Exception {
    startRuntime();

    Context.CancellableContext caller = Context.current().withDeadlineAfter(300, TimeUnit.MILLISECONDS, deadlineTimer);
    assertThatThrownBy(() -> caller.call(() -> backend.containerStatus(ContainerStatusRequest.newBuilder().setContainerId("hung").build())))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.DEADLINE_EXCEEDED));
  }

  @Test
  void acceptsListResponsesLargerThanGrpcsDefaultFourMebibytes() throws Exception {
    startRuntime();

    ListContainersResponse list = backend.listContainers(ListContainersRequest.getDefaultInstance());

    // 600 containers with a 10 KiB label each: about 6 MiB on the wire.
    assertThat(list.getContainersCount()).isEqualTo(600);
    assertThat(list.getSerializedSize()).isGreaterThan(6_000_000);
  }

  @Test
  void relaysEventsAndCancelsTheRuntimeStreamWhenTheCallerGoesAway() throws Exception {
    startRuntime();
    List<ContainerEventResponse> received = new CopyOnWriteArrayList<>();
    Context.CancellableContext caller = Context.current().withCancellation();

    caller.run(() -> backend.getContainerEvents(GetEventsRequest.getDefaultInstance(), new StreamObserver<>() {
      @Override
      public void onNext(ContainerEventResponse event) {
        received.add(event);
      }

      @Override
      public void onError(Throwable t) {}

      @Override
      public void onCompleted() {}
    }));
    await().until(() -> received.size() == 1);
    caller.cancel(null);

    assertThat(received.getFirst().getContainerId()).isEqualTo("c1");
    assertThat(runtime.eventStreamCancelled.await(10, TimeUnit.SECONDS)).isTrue();
  }

  /** Answers with values derived from the request, so a test sees the request arrived intact. */
  private static final class ScriptedRuntime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
    final AtomicReference<Deadline> lastDeadline = new AtomicReference<>();
    final CountDownLatch eventStreamCancelled = new CountDownLatch(1);

    @Override
    public void version(VersionRequest request, StreamObserver<VersionResponse> response) {
      lastDeadline.set(Context.current().getDeadline());
      response.onNext(VersionResponse.newBuilder().setRuntimeName("scripted").build());
      response.onCompleted();
    }

    @Override
    public void runPodSandbox(RunPodSandboxRequest request, StreamObserver<RunPodSandboxResponse> response) {
      response.onNext(RunPodSandboxResponse.newBuilder()
          .setPodSandboxId(request.getRuntimeHandler() + "/" + request.getConfig().getMetadata().getName()).build());
      response.onCompleted();
    }

    @Override
    public void podSandboxStatus(PodSandboxStatusRequest request, StreamObserver<PodSandboxStatusResponse> response) {
      response.onError(Status.NOT_FOUND
          .withDescription("an error occurred when try to find sandbox \"%s\"".formatted(request.getPodSandboxId()))
          .asRuntimeException());
    }

    @Override
    public void containerStatus(ContainerStatusRequest request, StreamObserver<ContainerStatusResponse> response) {
      // Never answers: the caller's deadline has to end the call.
    }

    @Override
    public void listContainers(ListContainersRequest request, StreamObserver<ListContainersResponse> response) {
      ListContainersResponse.Builder list = ListContainersResponse.newBuilder();
      String label = "x".repeat(10 * 1024);
      for (int i = 0; i < 600; i++) {
        list.addContainers(Container.newBuilder().setId("c" + i).putLabels("payload", label));
      }
      response.onNext(list.build());
      response.onCompleted();
    }

    @Override
    public void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> response) {
      ((ServerCallStreamObserver<ContainerEventResponse>) response).setOnCancelHandler(eventStreamCancelled::countDown);
      response.onNext(ContainerEventResponse.newBuilder().setContainerId("c1").build());
    }
  }

  /** Pulls succeed, except that each queued failure fails the next pull. */
  private static final class ScriptedImages extends ImageServiceGrpc.ImageServiceImplBase {
    final Queue<Status> failures = new ConcurrentLinkedQueue<>();
    final AtomicInteger pulls = new AtomicInteger();

    @Override
    public void pullImage(PullImageRequest request, StreamObserver<PullImageResponse> response) {
      pulls.incrementAndGet();
      Status failure = failures.poll();
      if (failure != null) {
        response.onError(failure.asRuntimeException());
        return;
      }
      response.onNext(PullImageResponse.newBuilder().setImageRef(request.getImage().getImage() + "@pulled").build());
      response.onCompleted();
    }
  }
}

package io.crigate.bench;

import io.crigate.api.cri.v1.*;
import io.crigate.cli.ctl.CriClient;
import io.crigate.images.Layer;
import io.crigate.images.RegistryClient;
import io.crigate.scheduler.NodeImageStatus;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * One node of the whole-chain experiment: a {@code crigate serve} in front of its own containerd,
 * publishing the node's {@code NodeImageLayers}, and the kubelet's side of it done through that
 * crigate: pods started (RunPodSandbox, PullImage if the image is absent, CreateContainer,
 * StartContainer), stopped and removed, the node status image list, and image GC.
 *
 * <p>Pulls are serialized per node, as the kubelet does by default ({@code serializeImagePulls}).
 */
final class ChainNode implements AutoCloseable {

  private static final Duration CALL_DEADLINE = Duration.ofMinutes(3);
  /**
   * Ten nodes' crigates start at once beside the other sessions' work: at load average 20 on 2
   * cores one of them took over 3 minutes to serve (its first start also records its class cache).
   */
  private static final Duration STARTUP_LIMIT = Duration.ofMinutes(10);
  private static final String NAMESPACE = "chain";
  private static final long POLL_NANOS = 2_000_000;
  /** How often a stop step is tried, and the pause between tries: the kubelet retries on its next pod sync. */
  private static final int STOP_ATTEMPTS = 5;
  private static final Duration STOP_RETRY_PAUSE = Duration.ofMillis(500);
  /** The CRI image annotation crigate adds per layer: {@code imageLayer.sha256:<hex>} = compressed bytes. */
  private static final String LAYER_ANNOTATION = "imageLayer.";

  /**
   * A pod the node runs, when its image step began, and how long it took from then until the
   * runtime started its container.
   */
  record StartedPod(String sandboxId, String containerId, String image, Instant began, Duration startLatency,
      ImageStep imageStep) {

    boolean pulled() {
      return imageStep.pulled();
    }
  }

  /**
   * The image step of a start: whether it pulled, how long it waited for the node's pull in
   * progress (one at a time, as the kubelet's serialized pulls), and how long its own pull took.
   */
  record ImageStep(boolean pulled, Duration waited, Duration pulling) {

    static final ImageStep PRESENT = new ImageStep(false, Duration.ZERO, Duration.ZERO);
  }

  final String name;
  private final CrigateUnderBench crigate;
  private final CriClient cri;
  private final RegistryClient registry;
  private final KubeletImageGc gc;
  private final String pauseImage;
  private final Path logRoot;
  private final ReentrantLock pulls = new ReentrantLock();
  private final ReentrantLock collecting = new ReentrantLock();
  private final Map<String, Integer> containersByImage = new ConcurrentHashMap<>();
  private final Map<String, Long> lastUsed = new ConcurrentHashMap<>();
  private final AtomicInteger removals = new AtomicInteger();

  private ChainNode(String name, CrigateUnderBench crigate, RegistryClient registry, KubeletImageGc gc,
      String pauseImage, Path logRoot) {
    this.name = name;
    this.crigate = crigate;
    this.cri = crigate.client();
    this.registry = registry;
    this.gc = gc;
    this.pauseImage = pauseImage;
    this.logRoot = logRoot;
  }

  /**
   * Starts crigate in front of {@code containerd}, publishing as node {@code name} to the API server
   * of {@code kubeconfig}, and pulls the sandbox image through it (a node has it before its first pod).
   */
  static ChainNode start(Path repository, Path workDir, String name, String containerd, Path kubeconfig,
      RegistryClient registry, KubeletImageGc gc, String pauseImage) throws IOException {
    Files.createDirectories(workDir);
    Path config = Files.writeString(workDir.resolve("crigate.yaml"), """
        images:
          publish:
            node: %s
        """.formatted(name));
    CrigateUnderBench crigate = CrigateUnderBench.start(repository, workDir, containerd, config,
        Map.of("KUBECONFIG", kubeconfig.toString()), STARTUP_LIMIT);
    ChainNode node = new ChainNode(name, crigate, registry, gc, pauseImage, workDir.resolve("pods"));
    node.cri.images(CALL_DEADLINE).pullImage(PullImageRequest.newBuilder().setImage(spec(pauseImage)).build());
    return node;
  }

  /**
   * Starts a host-network pod whose one container runs {@code sleep seconds} of {@code image}, as
   * the kubelet does with {@code imagePullPolicy: IfNotPresent}; the latency runs from the image
   * step (status, then the pull if needed) until the container's start time as containerd records
   * it ({@code ContainerStatus.started_at}; same host, same clock). Then runs image GC.
   */
  StartedPod startPod(String pod, String image, long sleepSeconds) throws IOException {
    Path logDir = Files.createDirectories(logRoot.resolve(pod));
    PodSandboxConfig sandbox = PodFleet.hostNetworkPod(pod, NAMESPACE, logDir);
    String sandboxId = cri.runtime(CALL_DEADLINE).runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(sandbox).build())
        .getPodSandboxId();
    containersByImage.merge(image, 1, Integer::sum);
    Instant beganAt = Instant.now();
    long began = epochNanos(beganAt);
    ImageStep imageStep = pullIfAbsent(image, sandbox);
    ContainerConfig container = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName("app"))
        .setImage(spec(image))
        .addCommand("/bin/sleep").addArgs(Long.toString(sleepSeconds))
        .setLogPath("app.log")
        .build();
    String containerId = cri.runtime(CALL_DEADLINE).createContainer(CreateContainerRequest.newBuilder()
        .setPodSandboxId(sandboxId).setConfig(container).setSandboxConfig(sandbox).build()).getContainerId();
    cri.runtime(CALL_DEADLINE).startContainer(StartContainerRequest.newBuilder().setContainerId(containerId).build());
    // until containerd's own start time, not until this harness saw the container running: how soon
    // a poll here runs on a loaded machine is the harness's latency, not the node's
    Duration latency = Duration.ofNanos(awaitRunning(containerId) - began);
    lastUsed.put(image, System.nanoTime());
    collectGarbage();
    return new StartedPod(sandboxId, containerId, image, beganAt, latency, imageStep);
  }

  /**
   * Stops and removes the pod's container and sandbox, as the kubelet does once the pod is done,
   * retrying a failed step as its next pod sync would. The container's own command ends at about
   * the same moment, and containerd 1.6 then fails a kill whose shim has just exited ("ttrpc:
   * closed") or a removal whose exit it has not yet recorded ("container is still running"); the
   * step succeeds once it has.
   */
  void stopPod(StartedPod pod) throws InterruptedException {
    // a stub's deadline runs from its creation: one per call
    untilDone(() -> cri.runtime(CALL_DEADLINE).stopContainer(
        StopContainerRequest.newBuilder().setContainerId(pod.containerId()).setTimeout(0).build()));
    untilDone(() -> cri.runtime(CALL_DEADLINE).removeContainer(
        RemoveContainerRequest.newBuilder().setContainerId(pod.containerId()).build()));
    untilDone(() -> cri.runtime(CALL_DEADLINE).stopPodSandbox(
        StopPodSandboxRequest.newBuilder().setPodSandboxId(pod.sandboxId()).build()));
    untilDone(() -> cri.runtime(CALL_DEADLINE).removePodSandbox(
        RemovePodSandboxRequest.newBuilder().setPodSandboxId(pod.sandboxId()).build()));
    lastUsed.put(pod.image(), System.nanoTime());
    containersByImage.merge(pod.image(), -1, Integer::sum);
  }

  /** Runs a stop step, again after {@link #STOP_RETRY_PAUSE} if it fails, at most {@link #STOP_ATTEMPTS} times. */
  private static void untilDone(Runnable step) throws InterruptedException {
    for (int attempt = 1; ; attempt++) {
      try {
        step.run();
        return;
      } catch (StatusRuntimeException failed) {
        if (attempt == STOP_ATTEMPTS) {
          throw failed;
        }
        Thread.sleep(STOP_RETRY_PAUSE);
      }
    }
  }

  /** What the kubelet reports in {@code node.status.images}: tag to size, the 50 largest. */
  Map<String, Long> imageStatus() {
    Map<String, Long> sizes = new HashMap<>();
    for (Image image : listImages()) {
      image.getRepoTagsList().forEach(tag -> sizes.put(tag, image.getSize()));
    }
    return NodeImageStatus.largest(sizes, NodeImageStatus.DEFAULT_MAX_IMAGES);
  }

  int gcRemovals() {
    return removals.get();
  }

  /** The kubelet asks for the image's status first; only a pull waits for the node's one pull at a time. */
  private ImageStep pullIfAbsent(String image, PodSandboxConfig sandbox) {
    if (present(image)) {
      return ImageStep.PRESENT;
    }
    long queued = System.nanoTime();
    pulls.lock();
    try {
      long locked = System.nanoTime();
      Duration waited = Duration.ofNanos(locked - queued);
      if (present(image)) {
        return new ImageStep(false, waited, Duration.ZERO);
      }
      cri.images(CALL_DEADLINE).pullImage(
          PullImageRequest.newBuilder().setImage(spec(image)).setSandboxConfig(sandbox).build());
      return new ImageStep(true, waited, Duration.ofNanos(System.nanoTime() - locked));
    } finally {
      pulls.unlock();
    }
  }

  private boolean present(String image) {
    return cri.images(CALL_DEADLINE).imageStatus(ImageStatusRequest.newBuilder().setImage(spec(image)).build()).hasImage();
  }

  /** The kubelet's image GC over what crigate lists, with the layers crigate annotates (or the registry's). */
  private void collectGarbage() {
    collecting.lock();
    try {
      List<KubeletImageGc.StoredImage> stored = new ArrayList<>();
      Set<String> keep = new HashSet<>(Set.of(pauseImage));
      containersByImage.forEach((image, containers) -> {
        if (containers > 0) {
          keep.add(image);
        }
      });
      for (Image image : listImages()) {
        for (String tag : image.getRepoTagsList()) {
          stored.add(new KubeletImageGc.StoredImage(tag, layers(image, tag)));
        }
      }
      for (String reference : gc.toRemove(stored, keep, lastUsed)) {
        cri.images(CALL_DEADLINE).removeImage(RemoveImageRequest.newBuilder().setImage(spec(reference)).build());
        lastUsed.remove(reference);
        removals.incrementAndGet();
      }
    } finally {
      collecting.unlock();
    }
  }

  private List<Layer> layers(Image image, String tag) {
    List<Layer> annotated = new ArrayList<>();
    image.getSpec().getAnnotationsMap().forEach((key, value) -> {
      if (key.startsWith(LAYER_ANNOTATION)) {
        annotated.add(new Layer(key.substring(LAYER_ANNOTATION.length()), Long.parseLong(value)));
      }
    });
    return annotated.isEmpty() ? registry.layers(tag).layers() : annotated;
  }

  private List<Image> listImages() {
    return cri.images(CALL_DEADLINE).listImages(ListImagesRequest.getDefaultInstance()).getImagesList();
  }

  /** Waits until the container runs; returns when it started by the runtime's clock, nanoseconds since the epoch. */
  private long awaitRunning(String containerId) {
    long deadline = System.nanoTime() + CALL_DEADLINE.toNanos();
    while (true) {
      ContainerStatus status = cri.runtime(CALL_DEADLINE).containerStatus(
          ContainerStatusRequest.newBuilder().setContainerId(containerId).build()).getStatus();
      if (status.getState() == ContainerState.CONTAINER_RUNNING) {
        return status.getStartedAt();
      }
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("container %s did not run within %s".formatted(containerId, CALL_DEADLINE));
      }
      LockSupport.parkNanos(POLL_NANOS);
    }
  }

  private static long epochNanos(Instant instant) {
    return instant.getEpochSecond() * 1_000_000_000L + instant.getNano();
  }

  private static ImageSpec spec(String image) {
    return ImageSpec.newBuilder().setImage(image).build();
  }

  @Override
  public void close() throws InterruptedException {
    crigate.close();
  }
}

package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.container;
import static io.crigate.backend.slurm.SlurmCluster.create;
import static io.crigate.backend.slurm.SlurmCluster.pod;
import static io.crigate.backend.slurm.SlurmCluster.settings;
import static io.crigate.backend.slurm.SlurmCluster.start;
import static io.crigate.backend.slurm.SlurmCluster.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.ExecSyncRequest;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import io.crigate.spi.CrigateException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * PortForward into a pod's running Slurm jobs, the backend's part of {@code kubectl port-forward}:
 * a relay step in the job joins each connection to a port on the job's node, through srun on this
 * host (transport local) or on the login node over SSH (transport ssh), against the real cluster
 * and sshd of slurm-up.sh. The pod has two jobs and the younger one listens; on this one-node
 * cluster they share the node's loopback, so JobPortForwarderTest covers trying job after job.
 */
class PortForwardIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private final CapturedStreams captured = new CapturedStreams();
  private SlurmBackend backend;
  private String podId;
  private String quiet;
  private String web;
  private int port;

  @AfterEach
  void removeThePod() {
    if (backend != null) {
      if (podId != null) {
        backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
      }
      backend.close();
    }
  }

  /** A pod whose first job only sleeps and whose second serves {@code page} over HTTP on the node's loopback. */
  private void webPod(SlurmCluster.Transport transport, String page) throws Exception {
    webPod(transport, settings(transport), page);
  }

  private void webPod(SlurmCluster.Transport transport, ObjectNode settings, String page) throws Exception {
    port = freePort();
    Path site = Files.createDirectories(Path.of(SlurmCluster.env("CRIGATE_SLURM_WORKDIR"), "pf-" + port));
    Files.writeString(site.resolve("index.html"), page);
    backend = SlurmCluster.backend(settings, tmp.resolve("state"), captured);
    PodSandboxConfig pod = pod("pf-" + transport.name().toLowerCase(), tmp.resolve("logs"), Map.of());
    String[] ids = create(backend, pod, container("quiet", List.of("sleep", "300"), Map.of()));
    podId = ids[0];
    quiet = ids[1];
    web = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(podId).setSandboxConfig(pod)
        .setConfig(container("web", List.of("busybox", "httpd", "-f", "-p", "127.0.0.1:" + port, "-h", site.toString()),
            Map.of())).build()).getContainerId();
    start(backend, quiet);
    start(backend, web);
    for (String id : List.of(quiet, web)) {
      await().atMost(WAIT).until(() -> status(backend, id).getMessage().contains(" RUNNING"));
    }
    await("httpd listening").atMost(WAIT).pollInterval(Duration.ofMillis(300)).until(() -> backend.execSync(
        ExecSyncRequest.newBuilder().setContainerId(web).addAllCmd(List.of("bash", "-c",
            "exec 3<>/dev/tcp/127.0.0.1/" + port)).build()).getExitCode() == 0);
  }

  /** A pod with one container that would sleep, created and not started; returns the container. */
  private String sleepingPod(SlurmCluster.Transport transport, String name) {
    backend = SlurmCluster.backend(settings(transport), tmp.resolve("state"), captured);
    String[] ids = create(backend, pod(name, tmp.resolve("logs"), Map.of()), container("main", List.of("sleep", "300"), Map.of()));
    podId = ids[0];
    return ids[1];
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }

  /** One forwarded connection as the streaming server runs it: what the client sends, then what came back. */
  private String forward(int target, String request) {
    backend.portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId).build());
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    // on a virtual thread of its own, as the streaming server runs each connection
    CompletableFuture<Void> done = CompletableFuture.runAsync(() ->
        captured.forwarder.forward(podId, target, new ByteArrayInputStream(request.getBytes(StandardCharsets.UTF_8)),
            received), Thread::startVirtualThread);
    done.orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS).join();
    return received.toString(StandardCharsets.UTF_8);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = SlurmCluster.Transport.class, names = {"LOCAL", "SSH"})
  void aConnectionReachesThePortOfTheJobThatListensOnIt(SlurmCluster.Transport transport) throws Exception {
    webPod(transport, "served from a slurm job\n");

    String answer = forward(port, "GET /index.html HTTP/1.0\r\n\r\n");

    assertThat(answer).startsWith("HTTP/1.").contains("200").endsWith("served from a slurm job\n");
    // a second connection is a relay of its own
    assertThat(forward(port, "GET /missing HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.").contains("404");
  }

  /** A browser opens several connections at once; each is a relay step of its own, over SSH too. */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = SlurmCluster.Transport.class, names = {"LOCAL", "SSH"})
  void concurrentConnectionsEachGetTheirAnswer(SlurmCluster.Transport transport) throws Exception {
    webPod(transport, "one of many\n");
    try (ExecutorService browser = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<String>> pages = IntStream.range(0, 12)
          .mapToObj(i -> browser.submit(() -> forward(port, "GET /index.html HTTP/1.0\r\n\r\n"))).toList();

      for (Future<String> page : pages) {
        assertThat(page.get(WAIT.toSeconds(), TimeUnit.SECONDS)).startsWith("HTTP/1.").endsWith("one of many\n");
      }
    }
  }

  @Test
  void aPortNothingListensOnIsRefusedNamingEachJobTried() throws Exception {
    webPod(SlurmCluster.Transport.LOCAL, "x");
    int closed = freePort();

    assertThatThrownBy(() -> forward(closed, "hello"))
        .hasCauseInstanceOf(CrigateException.Unavailable.class)
        .cause().hasMessageContaining("nothing accepted a connection to port " + closed)
        .hasMessageContaining("container " + quiet).hasMessageContaining("container " + web)
        .hasMessageContaining("Connection refused");
  }

  @Test
  void aPodWithoutARunningJobIsRefusedBeforeAUrlIsHandedOut() throws Exception {
    sleepingPod(SlurmCluster.Transport.LOCAL, "pf-created");

    assertThatThrownBy(() -> backend.portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId).build()))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining("no running container");
    assertThatThrownBy(() -> backend.portForward(PortForwardRequest.newBuilder().setPodSandboxId("nope").build()))
        .isInstanceOf(CrigateException.NotFound.class);
    assertThat(captured.forwarder).as("no URL handed out").isNull();
  }

  @Test
  void overSlurmrestdItIsUnimplementedNamingWhatWorks() throws Exception {
    String container = sleepingPod(SlurmCluster.Transport.REST, "pf-rest");
    start(backend, container);
    await().atMost(WAIT).until(() -> status(backend, container).getMessage().contains(" RUNNING"));

    assertThatThrownBy(() -> backend.portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId).build()))
        .isInstanceOf(CrigateException.Unimplemented.class).hasMessageContaining("transport local")
        .hasMessageContaining("through slurmrestd");
  }

  /**
   * The client leaving mid-connection ends the relay step: its input ends, and no step is left in
   * the job. No relay waits ahead here, so the job's only other step is the connection's.
   */
  @Test
  void aClientThatLeavesEndsItsRelayStep() throws Exception {
    webPod(SlurmCluster.Transport.LOCAL, settings(SlurmCluster.Transport.LOCAL).put("portForwardStandby", "0s"), "x");
    backend.portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId).build());
    Pipe pipe = Pipe.open();
    InputStream client = Channels.newInputStream(pipe.source());
    CompletableFuture<Void> done = CompletableFuture.runAsync(() ->
        captured.forwarder.forward(podId, port, client, OutputStream.nullOutputStream()));
    pipe.sink().write(ByteBuffer.wrap("GET /".getBytes(StandardCharsets.UTF_8)));
    long job = oldestJob();
    await("the relay step running").atMost(WAIT).until(() -> steps(job).size() > 1);

    pipe.sink().close();

    assertThat(done).succeedsWithin(Duration.ofSeconds(30));
    await("only the job's own step left").atMost(WAIT).until(() -> steps(job).size() == 1);
  }

  /**
   * After a connection, the next relay waits in the job as a step of its own; the next connection
   * uses that step, and one left unused ends when its time is up.
   */
  @ParameterizedTest(name = "{0}")
  @EnumSource(value = SlurmCluster.Transport.class, names = {"LOCAL", "SSH"})
  void aRelayWaitsInTheJobForTheNextConnectionUntilItsTimeIsUp(SlurmCluster.Transport transport) throws Exception {
    webPod(transport, settings(transport).put("portForwardStandby", "3s"), "served twice\n");
    long job = oldestJob();

    assertThat(forward(port, "GET /index.html HTTP/1.0\r\n\r\n")).endsWith("served twice\n");
    await("the connection's step ended, the next one's waiting").atMost(WAIT).until(() -> steps(job).size() == 2);
    String waiting = steps(job).stream().filter(step -> !step.endsWith(".batch")).findFirst().orElseThrow();

    assertThat(forward(port, "GET /index.html HTTP/1.0\r\n\r\n")).endsWith("served twice\n");
    await("the waiting step took the connection and ended; a new one waits").atMost(WAIT)
        .until(() -> steps(job).size() == 2 && !steps(job).contains(waiting));

    await("the unused one ended after 3 s").atMost(WAIT).until(() -> steps(job).size() == 1);
  }

  /**
   * Three connections open at once leave three relays waiting in the job once they have ended, each
   * a step, all ended when their time is up.
   */
  @Test
  void asManyRelaysWaitAsConnectionsWereOpenAtOnce() throws Exception {
    webPod(SlurmCluster.Transport.LOCAL, settings(SlurmCluster.Transport.LOCAL).put("portForwardStandby", "5s"), "x");
    long job = oldestJob();
    List<OutputStream> clients = new ArrayList<>();
    List<CompletableFuture<Void>> ends = new ArrayList<>();
    for (int open = 1; open <= 3; open++) {
      backend.portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId).build());
      Pipe pipe = Pipe.open();
      clients.add(Channels.newOutputStream(pipe.sink()));
      ends.add(CompletableFuture.runAsync(() -> captured.forwarder.forward(podId, port,
          Channels.newInputStream(pipe.source()), OutputStream.nullOutputStream()), Thread::startVirtualThread));
      int steps = 2 + open; // the batch step, the open connections' and one waiting for the next
      await(open + " connections up, one relay waiting").atMost(WAIT).until(() -> steps(job).size() == steps);
    }

    for (OutputStream client : clients) {
      client.close();
    }
    for (CompletableFuture<Void> end : ends) {
      assertThat(end).succeedsWithin(Duration.ofSeconds(30));
    }
    await("the connections' steps ended, as many waiting as were open").atMost(WAIT).until(() -> steps(job).size() == 4);
    await("the waiting ones ended after 5 s").atMost(WAIT).until(() -> steps(job).size() == 1);
  }

  @Test
  void closingTheBackendEndsTheStepWaitingInTheJob() throws Exception {
    webPod(SlurmCluster.Transport.LOCAL, "x");
    long job = oldestJob();
    assertThat(forward(port, "GET /index.html HTTP/1.0\r\n\r\n")).startsWith("HTTP/1.");
    await("a relay waiting").atMost(WAIT).until(() -> steps(job).size() == 2);

    backend.close();

    await("only the job's own step left").atMost(WAIT).until(() -> steps(job).size() == 1);
    backend = SlurmCluster.backend(settings(SlurmCluster.Transport.LOCAL), tmp.resolve("state"), captured);
  }

  /** The pod's oldest job, which is tried first; on this one-node cluster its relay reaches the web job's port. */
  private long oldestJob() {
    return Long.parseLong(status(backend, quiet).getMessage().replaceAll(".*slurm job (\\d+).*", "$1"));
  }

  /** The steps Slurm runs in {@code job}, its batch step included. */
  private static List<String> steps(long job) throws Exception {
    Process squeue = new ProcessBuilder("squeue", "--steps", "--noheader", "--jobs=" + job, "--format=%i").start();
    String out = new String(squeue.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(squeue.waitFor()).isZero();
    return out.lines().filter(line -> !line.isBlank() && !line.endsWith(".extern")).toList();
  }
}

package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.CrigateException;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The relay and the choice of job, with the relay script run for real by bash on this host in
 * place of srun: the launcher drops srun's words and keeps the command after {@code --}.
 * PortForwardIT runs it through srun into real jobs.
 */
class JobPortForwarderTest {

  private final List<ServerSocket> servers = new ArrayList<>();

  @AfterEach
  void closeServers() throws IOException {
    for (ServerSocket server : servers) {
      server.close();
    }
  }

  /** A port that answers each connection with {@code answer}, after reading {@code before} bytes, then closes it. */
  private int answering(String answer, int before) throws IOException {
    ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    servers.add(server);
    Thread.ofVirtual().start(() -> {
      while (!server.isClosed()) {
        try (Socket socket = server.accept()) {
          socket.getInputStream().readNBytes(before);
          socket.getOutputStream().write(answer.getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
          // closed by the test
        }
      }
    });
    return server.getLocalPort();
  }

  /** A port that echoes until the client closes its side. */
  private int echoing() throws IOException {
    ServerSocket server = new ServerSocket(0, 8, InetAddress.getLoopbackAddress());
    servers.add(server);
    Thread.ofVirtual().start(() -> {
      while (!server.isClosed()) {
        try (Socket socket = server.accept()) {
          socket.getInputStream().transferTo(socket.getOutputStream());
        } catch (IOException e) {
          // closed by the test
        }
      }
    });
    return server.getLocalPort();
  }

  private static int closedPort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return socket.getLocalPort();
    }
  }

  /** A job whose relay runs here; {@code reroute} changes the relay's words, e.g. to aim it at another port. */
  private static RunningJob job(String container, long jobId, UnaryOperator<List<String>> reroute) {
    Interactive.Launcher launcher = (argv, tty, size) ->
        LocalInteractive.start(reroute.apply(argv.subList(argv.indexOf("--") + 1, argv.size())), tty, size);
    return new RunningJob(container, jobId, null, launcher, UnaryOperator.identity(), Path.of("/nonexistent"), () -> false);
  }

  private static RunningJob viaRest(String container, long jobId) {
    return new RunningJob(container, jobId, null, null, UnaryOperator.identity(), Path.of("/nonexistent"), () -> false);
  }

  private static UnaryOperator<List<String>> toPort(int port) {
    return argv -> {
      List<String> rerouted = new ArrayList<>(argv);
      rerouted.set(rerouted.size() - 1, Integer.toString(port));
      return rerouted;
    };
  }

  private static String forward(JobPortForwarder forwarder, int port, InputStream client) {
    ByteArrayOutputStream received = new ByteArrayOutputStream();
    forwarder.forward("pod1", port, client, received);
    return received.toString(StandardCharsets.UTF_8);
  }

  @Test
  void eachJobIsTriedInTurnUntilOnesRelayConnects() throws Exception {
    int port = answering("hello from the second job", 4);
    int closed = closedPort();
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, toPort(closed)), job("b", 2, argv -> argv)));

    String answer = forward(forwarder, port, new ByteArrayInputStream("ping".getBytes(StandardCharsets.UTF_8)));

    assertThat(answer).isEqualTo("hello from the second job");
  }

  @Test
  void whenNoJobsRelayConnectsEachIsNamedWithWhy() throws Exception {
    int closed = closedPort();
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, argv -> argv), viaRest("r", 3),
        job("b", 2, argv -> argv)));

    assertThatThrownBy(() -> forward(forwarder, closed, InputStream.nullInputStream()))
        .isInstanceOf(CrigateException.Unavailable.class)
        .hasMessageStartingWith("nothing accepted a connection to port " + closed + ": container a (job 1): ")
        .hasMessageContaining("Connection refused")
        .hasMessageContaining("container r: its job is reached through slurmrestd")
        .hasMessageContaining("container b (job 2): ");
  }

  @Test
  void aPodIsCheckedForARunningJobThatSrunCanReach() {
    PortForwardRequest request = PortForwardRequest.newBuilder().setPodSandboxId("pod1").build();

    assertThatThrownBy(() -> new JobPortForwarder(pod -> List.of()).check(request))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining("pod pod1 has no running container");
    assertThatThrownBy(() -> new JobPortForwarder(pod -> List.of(viaRest("r", 3))).check(request))
        .isInstanceOf(CrigateException.Unimplemented.class).hasMessageContaining("through slurmrestd");
    new JobPortForwarder(pod -> List.of(viaRest("r", 3), job("a", 1, argv -> argv))).check(request);
  }

  /** As containerd's forwarder: once the client has sent all it will, the pod's side has a second to answer. */
  @Test
  void theClientClosingItsSideEndsTheConnectionWhileThePortKeepsItsOpen() throws Exception {
    int port = echoing();
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, argv -> argv)));
    long start = System.nanoTime();

    String answer = forward(forwarder, port, new ByteArrayInputStream("echo me".getBytes(StandardCharsets.UTF_8)));

    assertThat(answer).isEqualTo("echo me");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void thePortClosingItsSideEndsTheConnectionWhileTheClientKeepsItsOpen() throws Exception {
    int port = answering("bye", 0);
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, argv -> argv)));
    Pipe pipe = Pipe.open();
    try (OutputStream neverClosedInTime = Channels.newOutputStream(pipe.sink())) {
      CompletableFuture<String> answer = CompletableFuture.supplyAsync(() ->
          forward(forwarder, port, Channels.newInputStream(pipe.source())));
      pipe.sink().write(ByteBuffer.wrap("x".getBytes(StandardCharsets.UTF_8)));

      assertThat(answer).succeedsWithin(Duration.ofSeconds(20)).isEqualTo("bye");
    }
  }

  /**
   * A port that answers and closes before the relay has started waiting: with bash's wait -n such a
   * copier was missed about once in forty connections, and the relay waited on the client for ever.
   */
  @Test
  void aPortThatAnswersAtOnceNeverLeavesTheRelayWaitingOnTheClient() throws Exception {
    int port = answering("at once", 0);
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, argv -> argv)));
    for (int i = 0; i < 100; i++) {
      Pipe pipe = Pipe.open();
      try (OutputStream openUntilTheEnd = Channels.newOutputStream(pipe.sink())) {
        CompletableFuture<String> answer = CompletableFuture.supplyAsync(() ->
            forward(forwarder, port, Channels.newInputStream(pipe.source())));

        assertThat(answer).as("connection %d", i).succeedsWithin(Duration.ofSeconds(20)).isEqualTo("at once");
      }
    }
  }

  /**
   * srun passes on SSH_CLIENT from a login over SSH, which makes bash read ~/.bashrc even for -c;
   * what a .bashrc prints must not reach the forwarded connection.
   */
  @Test
  void aBashrcThatPrintsDoesNotReachTheConnectionWhenReachedOverSsh(@TempDir Path home) throws Exception {
    Files.writeString(home.resolve(".bashrc"), "echo welcome to the cluster\n");
    int port = answering("only the pod's bytes", 4);
    UnaryOperator<List<String>> asIfOverSsh = argv -> {
      // as srun started by sshd's exec has it: SSH_CLIENT set and no SHLVL (sshd's shell execs srun)
      List<String> wrapped = new ArrayList<>(List.of("env", "-u", "SHLVL", "SSH_CLIENT=10.0.0.1 50000 22",
          "HOME=" + home));
      wrapped.addAll(argv);
      return wrapped;
    };
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, asIfOverSsh)));

    String answer = forward(forwarder, port, new ByteArrayInputStream("ping".getBytes(StandardCharsets.UTF_8)));

    assertThat(answer).isEqualTo("only the pod's bytes");
  }

  /** srun adds "task 0: Exited with exit code 3" after the relay's own words, or before them. */
  @Test
  void srunsExitLineDoesNotHideWhyTheRelayFailed() throws Exception {
    int closed = closedPort();
    UnaryOperator<List<String>> likeSrun = argv -> {
      List<String> wrapped = new ArrayList<>(List.of("sh", "-c",
          "\"$@\"; code=$?; echo \"srun: error: node1: task 0: Exited with exit code $code\" >&2; exit $code", "srun"));
      wrapped.addAll(argv);
      return wrapped;
    };
    JobPortForwarder forwarder = new JobPortForwarder(pod -> List.of(job("a", 1, likeSrun)));

    assertThatThrownBy(() -> forward(forwarder, closed, InputStream.nullInputStream()))
        .hasMessageContaining("container a (job 1): ").hasMessageContaining("Connection refused")
        .hasMessageNotContaining("Exited with exit code");
  }
}

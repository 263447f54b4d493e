package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.TerminalSize;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.FilterOutputStream;
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
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
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

  private final List<JobPortForwarder> forwarders = new ArrayList<>();

  @AfterEach
  void closeServersAndForwarders() throws IOException {
    forwarders.forEach(JobPortForwarder::close);
    for (ServerSocket server : servers) {
      server.close();
    }
  }

  /** A forwarder as the backend makes it, whose relays started ahead wait 30 s. */
  private JobPortForwarder forwarder(Function<String, List<RunningJob>> podJobs) {
    return forwarder(podJobs, Duration.ofSeconds(30));
  }

  private JobPortForwarder forwarder(Function<String, List<RunningJob>> podJobs, Duration standby) {
    JobPortForwarder forwarder = new JobPortForwarder(podJobs, standby);
    forwarders.add(forwarder);
    return forwarder;
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
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, toPort(closed)), job("b", 2, argv -> argv)));

    String answer = forward(forwarder, port, new ByteArrayInputStream("ping".getBytes(StandardCharsets.UTF_8)));

    assertThat(answer).isEqualTo("hello from the second job");
  }

  @Test
  void whenNoJobsRelayConnectsEachIsNamedWithWhy() throws Exception {
    int closed = closedPort();
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, argv -> argv), viaRest("r", 3),
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

    assertThatThrownBy(() -> forwarder(pod -> List.of()).check(request))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining("pod pod1 has no running container");
    assertThatThrownBy(() -> forwarder(pod -> List.of(viaRest("r", 3))).check(request))
        .isInstanceOf(CrigateException.Unimplemented.class).hasMessageContaining("through slurmrestd");
    forwarder(pod -> List.of(viaRest("r", 3), job("a", 1, argv -> argv))).check(request);
  }

  /** As containerd's forwarder: once the client has sent all it will, the pod's side has a second to answer. */
  @Test
  void theClientClosingItsSideEndsTheConnectionWhileThePortKeepsItsOpen() throws Exception {
    int port = echoing();
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, argv -> argv)));
    long start = System.nanoTime();

    String answer = forward(forwarder, port, new ByteArrayInputStream("echo me".getBytes(StandardCharsets.UTF_8)));

    assertThat(answer).isEqualTo("echo me");
    assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));
  }

  @Test
  void thePortClosingItsSideEndsTheConnectionWhileTheClientKeepsItsOpen() throws Exception {
    int port = answering("bye", 0);
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, argv -> argv)));
    Pipe pipe = Pipe.open();
    try (OutputStream neverClosedInTime = Channels.newOutputStream(pipe.sink())) {
      CompletableFuture<String> answer = CompletableFuture.supplyAsync(() ->
          forward(forwarder, port, Channels.newInputStream(pipe.source())), Thread::startVirtualThread);
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
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, argv -> argv)));
    for (int i = 0; i < 100; i++) {
      Pipe pipe = Pipe.open();
      try (OutputStream openUntilTheEnd = Channels.newOutputStream(pipe.sink())) {
        CompletableFuture<String> answer = CompletableFuture.supplyAsync(() ->
            forward(forwarder, port, Channels.newInputStream(pipe.source())), Thread::startVirtualThread);

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
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, asIfOverSsh)));

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
    JobPortForwarder forwarder = forwarder(pod -> List.of(job("a", 1, likeSrun)));

    assertThatThrownBy(() -> forward(forwarder, closed, InputStream.nullInputStream()))
        .hasMessageContaining("container a (job 1): ").hasMessageContaining("Connection refused")
        .hasMessageNotContaining("Exited with exit code");
  }

  /** The relays a job's launcher started, in order, and which of them were told to connect. */
  private static final class Relays implements Interactive.Launcher {
    final List<Interactive> started = new CopyOnWriteArrayList<>();
    final Set<Integer> told = ConcurrentHashMap.newKeySet();
    private final UnaryOperator<List<String>> reroute;
    private final Duration eachStart;

    Relays(UnaryOperator<List<String>> reroute) {
      this(reroute, Duration.ZERO);
    }

    /** @param eachStart how long each start takes, one at a time, as a slow login shell over SSH staggers them */
    Relays(UnaryOperator<List<String>> reroute, Duration eachStart) {
      this.reroute = reroute;
      this.eachStart = eachStart;
    }

    @Override
    public Interactive start(List<String> argv, boolean tty, TerminalSize size) {
      synchronized (eachStart) {
        try {
          Thread.sleep(eachStart);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      Interactive relay = LocalInteractive.start(reroute.apply(argv.subList(argv.indexOf("--") + 1, argv.size())), tty, size);
      int index;
      synchronized (started) {
        index = started.size();
        started.add(relay);
      }
      OutputStream stdin = new FilterOutputStream(relay.stdin()) {
        @Override
        public void write(int b) throws IOException {
          told.add(index);
          super.write(b);
        }
      };
      return new Interactive() {
        @Override public OutputStream stdin() {
          return stdin;
        }
        @Override public InputStream stdout() {
          return relay.stdout();
        }
        @Override public InputStream stderr() {
          return relay.stderr();
        }
        @Override public void resize(TerminalSize to) {
          relay.resize(to);
        }
        @Override public int waitFor() throws InterruptedException {
          return relay.waitFor();
        }
        @Override public void kill() {
          relay.kill();
        }
      };
    }

    RunningJob job(String container, long jobId) {
      return new RunningJob(container, jobId, null, this, UnaryOperator.identity(), Path.of("/nonexistent"), () -> false);
    }

    /** Waits until {@code n} relays were started. */
    void awaitStarted(int n) throws InterruptedException {
      awaitAtLeast(started, n, "started");
    }

    /** Waits until {@code n} relays were told to connect. */
    void awaitTold(int n) throws InterruptedException {
      awaitAtLeast(told, n, "told to connect");
    }

    private static void awaitAtLeast(Collection<?> relays, int n, String what) throws InterruptedException {
      for (long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos(); relays.size() < n; ) {
        assertThat(System.nanoTime()).as("%d relays %s in time, not %d", n, what, relays.size()).isLessThan(deadline);
        Thread.sleep(10);
      }
    }

    CompletableFuture<Integer> exit(int index) {
      return CompletableFuture.supplyAsync(() -> {
        try {
          return started.get(index).waitFor();
        } catch (InterruptedException e) {
          throw new IllegalStateException(e);
        }
      }, Thread::startVirtualThread);
    }
  }

  private static InputStream ping() {
    return new ByteArrayInputStream("ping".getBytes(StandardCharsets.UTF_8));
  }

  /** A pod of one job, whose port answers a ping with {@code pong}, forwarded into with relays started ahead for {@code standby}. */
  private record PongJob(Relays relays, JobPortForwarder forwarder, int port) {
    String connect() {
      return forward(forwarder, port, ping());
    }
  }

  private PongJob pongJob(Duration standby) throws IOException {
    int port = answering("pong", 4);
    Relays relays = new Relays(argv -> argv);
    return new PongJob(relays, forwarder(pod -> List.of(relays.job("a", 1)), standby), port);
  }

  /** {@link #pongJob} after its first connection, with the relay for the next started (relay 1). */
  private PongJob pongJobAfterOneConnection(Duration standby) throws Exception {
    PongJob pong = pongJob(standby);
    assertThat(pong.connect()).isEqualTo("pong");
    pong.relays().awaitStarted(2);
    return pong;
  }

  @Test
  void theNextConnectionToAPortIsServedByTheRelayStartedAheadForIt() throws Exception {
    PongJob pong = pongJobAfterOneConnection(Duration.ofSeconds(30));
    Relays relays = pong.relays();

    assertThat(pong.connect()).isEqualTo("pong");
    relays.awaitStarted(3);

    assertThat(relays.told).as("the second connection used the relay started ahead, not a new one")
        .containsExactlyInAnyOrder(0, 1);
    assertThat(relays.started).hasSize(3);
  }

  @Test
  void withoutAStandbyEachConnectionStartsItsOwnRelay() throws Exception {
    PongJob pong = pongJob(Duration.ZERO);
    Relays relays = pong.relays();

    assertThat(pong.connect()).isEqualTo("pong");
    assertThat(pong.connect()).isEqualTo("pong");

    assertThat(relays.started).hasSize(2);
    assertThat(relays.told).containsExactlyInAnyOrder(0, 1);
  }

  /** Its end of input ends a relay that was never told to connect: it exits 0, nothing killed. */
  @Test
  void aRelayStartedAheadIsDismissedWhenItsTimeIsUpAndTheNextConnectionStartsItsOwn() throws Exception {
    PongJob pong = pongJobAfterOneConnection(Duration.ofMillis(300));
    Relays relays = pong.relays();

    assertThat(relays.exit(1)).succeedsWithin(Duration.ofSeconds(20)).isEqualTo(0);
    assertThat(pong.connect()).isEqualTo("pong");

    assertThat(relays.told).containsExactlyInAnyOrder(0, 2);
  }

  @Test
  void aRelayThatDiedWhileWaitingIsReplacedByANewOne() throws Exception {
    PongJob pong = pongJobAfterOneConnection(Duration.ofSeconds(30));
    Relays relays = pong.relays();

    relays.started.get(1).kill();
    assertThat(relays.exit(1)).succeedsWithin(Duration.ofSeconds(20));

    assertThat(pong.connect()).isEqualTo("pong");
    assertThat(relays.told).as("the dead one was tried, then a new one connected").contains(0, 2);
  }

  @Test
  void closingTheForwarderDismissesTheRelaysStartedAhead() throws Exception {
    PongJob pong = pongJobAfterOneConnection(Duration.ofSeconds(30));
    Relays relays = pong.relays();

    pong.forwarder().close();

    assertThat(relays.exit(1)).succeedsWithin(Duration.ofSeconds(20)).isEqualTo(0);
    assertThat(relays.told).containsExactly(0);
  }

  /**
   * Three connections open at once leave three relays waiting once they have ended, so three that
   * come at once later all find one: none of them starts a relay of its own.
   */
  @Test
  void asManyRelaysWaitAsConnectionsWereOpenAtOnce() throws Exception {
    int port = echoing();
    Relays relays = new Relays(argv -> argv);
    JobPortForwarder forwarder = forwarder(pod -> List.of(relays.job("a", 1)));
    List<OutputStream> clients = new ArrayList<>();
    List<CompletableFuture<String>> ends = new ArrayList<>();
    // one after another, each up before the next: the first starts its own, and each then one to wait for the next
    for (int open = 1; open <= 3; open++) {
      ends.add(openConnection(forwarder, port, clients));
      relays.awaitStarted(open + 1);
    }
    closeAll(clients, ends);
    relays.awaitStarted(6); // the last one ended: two more join the one waiting
    assertThat(forwarder.relaysWaiting()).as("what the metrics show").isEqualTo(3);
    Set<Integer> firstRound = Set.copyOf(relays.told);
    int startedBefore = relays.started.size();

    for (int i = 0; i < 3; i++) {
      ends.add(openConnection(forwarder, port, clients));
    }
    relays.awaitTold(6);
    closeAll(clients, ends);

    assertThat(firstRound).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(relays.told).as("the three at once took the three relays waiting, started before them")
        .containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5).allMatch(index -> index < startedBefore);
  }

  /**
   * Four connections asked for at once whose relays start one after another come up and end one
   * after another, never open together; they still leave four waiting, so the next four at once
   * all find one.
   */
  @Test
  void aBurstCountsTheConnectionsAskedForAtOnceNotThoseUpAtOnce() throws Exception {
    int port = answering("pong", 4);
    Relays relays = new Relays(argv -> argv, Duration.ofMillis(100));
    JobPortForwarder forwarder = forwarder(pod -> List.of(relays.job("a", 1)));

    burstOfFour(forwarder, port);
    relays.awaitStarted(8); // four for the burst, four waiting after it
    int startedBefore = relays.started.size();
    burstOfFour(forwarder, port);

    assertThat(relays.told).as("the second burst took four relays started before it").hasSize(8)
        .allMatch(index -> index < startedBefore);
  }

  private static void burstOfFour(JobPortForwarder forwarder, int port) {
    List<CompletableFuture<String>> answers = IntStream.range(0, 4).mapToObj(i -> CompletableFuture.supplyAsync(
        () -> forward(forwarder, port, ping()), Thread::startVirtualThread)).toList();
    for (CompletableFuture<String> answer : answers) {
      assertThat(answer).succeedsWithin(Duration.ofSeconds(20)).isEqualTo("pong");
    }
  }

  private static CompletableFuture<String> openConnection(JobPortForwarder forwarder, int port, List<OutputStream> clients)
      throws IOException {
    Pipe client = Pipe.open();
    clients.add(Channels.newOutputStream(client.sink()));
    return CompletableFuture.supplyAsync(() -> forward(forwarder, port, Channels.newInputStream(client.source())),
        Thread::startVirtualThread);
  }

  private static void closeAll(List<OutputStream> clients, List<CompletableFuture<String>> ends) throws IOException {
    for (OutputStream client : clients) {
      client.close();
    }
    for (CompletableFuture<String> end : ends) {
      assertThat(end).succeedsWithin(Duration.ofSeconds(20));
    }
    clients.clear();
    ends.clear();
  }

  /** The job that took the last connection to a port is asked first, so a refusing older job costs no step. */
  @Test
  void theJobThatTookTheLastConnectionIsTriedFirst() throws Exception {
    int port = answering("from b", 4);
    int closed = closedPort();
    Relays refusing = new Relays(toPort(closed));
    Relays accepting = new Relays(argv -> argv);
    JobPortForwarder forwarder = forwarder(pod -> List.of(refusing.job("a", 1), accepting.job("b", 2)));

    assertThat(forward(forwarder, port, ping())).isEqualTo("from b");
    accepting.awaitStarted(2);
    assertThat(forward(forwarder, port, ping())).isEqualTo("from b");

    assertThat(refusing.started).as("job a, refused once, was not asked again").hasSize(1);
    assertThat(accepting.told).containsExactlyInAnyOrder(0, 1);
  }
}

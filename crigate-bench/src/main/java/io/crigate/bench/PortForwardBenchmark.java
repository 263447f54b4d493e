package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.backend.slurm.SlurmBackendFactory;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.Backend;
import io.crigate.spi.InitContext;
import io.crigate.streaming.StreamingServer;
import io.crigate.streaming.StreamingSettings;
import io.crigate.transport.EventLoops;
import io.netty.channel.EventLoopGroup;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * {@code kubectl port-forward} into a Slurm job, one connection at a time: through crigate's
 * streaming server and the slurm backend's relay step (the PortForward call, the WebSocket v4
 * open, one HTTP/1.0 request and its whole answer), against the same request sent straight to the
 * job's port, the floor of any forward. The forward runs twice: as shipped, where the relay for the
 * next connection already waits in the job, and with {@code portForwardStandby: 0}, where each
 * connection starts its own. The three take turns connection by connection in one run; an empty
 * srun step after each round shows how much of a relay's start is srun's own.
 * The job serves a page with busybox httpd on the node's loopback, which on this one-node cluster
 * is this host's.
 *
 * <p>Usage: {@code PortForwardBenchmark <workDir> <stateDir> [connections=50] [transport=local|ssh]};
 * needs SLURM_CONF, and for ssh the CRIGATE_SSH_* exports of slurm-up.sh (the login user:
 * BENCH_SSH_USER, default crigate-hpc).
 */
public final class PortForwardBenchmark {

  private static final String PAGE = "served from a slurm job\n";
  private static final byte[] REQUEST = "GET / HTTP/1.0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);
  private static final int WARMUP = 5;
  private static final Duration PAUSE = Duration.ofMillis(300);
  private static final int BURST = 4;
  private static final EventLoopGroup IO = EventLoops.epoll(1, "portforward-bench-io");
  /** One for the run, as {@code crigate ctl port-forward} keeps one for all its connections. */
  private static final HttpClient HTTP = HttpClient.newHttpClient();
  /**
   * The SSH login: a cluster account with Debian's own shell start-up by default. Every SSH channel
   * runs the login's shell, which reads its {@code ~/.bashrc}; this host's root initialises pyenv
   * there, 85 ms a channel (BENCH_SSH_USER=root measures that).
   */
  private static final String SSH_USER = System.getenv().getOrDefault("BENCH_SSH_USER", "crigate-hpc");

  private PortForwardBenchmark() {}

  public static void main(String[] args) throws Exception {
    Path workDir = Files.createDirectories(Path.of(args[0]));
    Path stateDir = Path.of(args[1]);
    int connections = args.length > 2 ? Integer.parseInt(args[2]) : 50;
    String transport = args.length > 3 ? args[3] : "local";
    String jobUser = transport.equals("ssh") ? SSH_USER : System.getProperty("user.name");
    try (GatewayState state = GatewayState.open(stateDir);
        StreamingServer server = StreamingServer.create(StreamingSettings.defaults())) {
      // the same backend twice, each with a web job of its own: one as shipped, whose next relay
      // waits in the job ahead of the connection, and one that starts a relay for every connection
      Forwarded ahead = Forwarded.start("pf-ahead", "30s", workDir, transport, stateDir, state, server);
      Forwarded cold = null;
      try {
        cold = Forwarded.start("pf-cold", "0s", workDir, transport, stateDir, state, server);
        for (int i = 0; i < WARMUP; i++) {
          direct(ahead.port());
          viaCrigate(ahead);
          viaCrigate(cold);
          emptyStep(ahead.web().jobId(), jobUser);
        }
        Samples direct = new Samples();
        Samples waiting = new Samples();
        Samples started = new Samples();
        Samples step = new Samples();
        for (int i = 0; i < connections; i++) {
          // rotate the order, so none always follows another's step teardown
          for (int k = 0; k < 3; k++) {
            switch ((i + k) % 3) {
              case 0 -> direct.add(direct(ahead.port()));
              case 1 -> waiting.add(viaCrigate(ahead));
              default -> started.add(viaCrigate(cold));
            }
            // a client's pause between connections: the relay started ahead after a connection then
            // starts in it, not during the next measured connection (over SSH the login shell's
            // start-up for its channel would slow whichever came next)
            Thread.sleep(PAUSE);
          }
          step.add(emptyStep(ahead.web().jobId(), jobUser));
        }
        Samples burstWaiting = new Samples();
        Samples burstStarted = new Samples();
        burst(ahead);
        burst(cold);
        for (int i = 0; i < Math.max(5, connections / BURST); i++) {
          // alternate which goes first; a page's parts come a while after each other page
          for (Forwarded to : i % 2 == 0 ? List.of(ahead, cold) : List.of(cold, ahead)) {
            burst(to).forEach((to == ahead ? burstWaiting : burstStarted)::add);
            Thread.sleep(PAUSE.multipliedBy(3));
          }
        }
        System.out.printf("transport %s%s, %d connections each, one HTTP/1.0 request and its answer%n", transport,
            transport.equals("ssh") ? " as " + SSH_USER : "", connections);
        report("straight to the job's port (baseline)", direct);
        report("port-forward, its relay waiting in the job (portForwardStandby 30s)", waiting);
        report("port-forward, a relay started per connection (portForwardStandby 0)", started);
        report("an empty step on this host: srun --overlap --jobid=<job> true", step);
        System.out.printf("%d connections at once, as a browser loads a page's parts (%d rounds each):%n", BURST,
            burstWaiting.count() / BURST);
        report("port-forward, relays waiting in the job (as many as asked for at once)", burstWaiting);
        report("port-forward, a relay started per connection (portForwardStandby 0)", burstStarted);
        System.out.printf("added by the forward: p50 %.1f ms with the relay waiting, %.1f ms without%n",
            (waiting.percentile(50) - direct.percentile(50)) / 1e6, (started.percentile(50) - direct.percentile(50)) / 1e6);
      } finally {
        ahead.close();
        if (cold != null) {
          cold.close();
        }
      }
    }
  }

  /** A slurm backend with a web job, reached through crigate's streaming server. */
  private record Forwarded(Backend backend, WebJob web, int port) implements AutoCloseable {
    static Forwarded start(String name, String standby, Path workDir, String transport, Path stateDir,
        GatewayState state, StreamingServer server) throws Exception {
      int port = freePort();
      Path site = Files.createDirectories(workDir.resolve(name));
      Files.writeString(site.resolve("index.html"), PAGE);
      Backend backend = new SlurmBackendFactory().create(new InitContext(name,
          settings(workDir, transport).put("portForwardStandby", standby), Files.createDirectories(stateDir.resolve(name)),
          state.backendStore(name), Clock.systemUTC(), IO, server, new PrometheusRegistry()));
      try {
        return new Forwarded(backend, startWebJob(backend, workDir, site, port), port);
      } catch (Exception e) {
        backend.close();
        throw e;
      }
    }

    @Override
    public void close() {
      backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(web.podId()).build());
      backend.close();
    }
  }

  /** {@link #BURST} connections opened at once; the time of each. */
  private static List<Long> burst(Forwarded to) throws Exception {
    try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<Long>> each = IntStream.range(0, BURST).mapToObj(i -> clients.submit(() -> viaCrigate(to))).toList();
      List<Long> times = new ArrayList<>();
      for (Future<Long> connection : each) {
        times.add(connection.get(60, TimeUnit.SECONDS));
      }
      return times;
    }
  }

  private static ObjectNode settings(Path workDir, String transport) {
    ObjectNode settings = new ObjectMapper().createObjectNode().put("workDir", workDir.toString()).put("pollInterval", "300ms");
    if (transport.equals("ssh")) {
      settings.put("transport", "ssh");
      settings.putObject("ssh").put("host", "127.0.0.1").put("port", Integer.parseInt(System.getenv("CRIGATE_SSH_PORT")))
          .put("user", SSH_USER).put("privateKeyFile", System.getenv("CRIGATE_SSH_KEY"))
          .put("knownHostsFile", System.getenv("CRIGATE_SSH_KNOWN_HOSTS"));
    } else if (!transport.equals("local")) {
      throw new IllegalArgumentException("transport must be local or ssh, not " + transport);
    }
    return settings;
  }

  private record WebJob(String podId, long jobId) {}

  private static WebJob startWebJob(Backend backend, Path workDir, Path site, int port) throws Exception {
    PodSandboxConfig pod = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName("pf-bench-" + port).setNamespace("bench").setUid("pf-bench-" + port))
        .setLogDirectory(Files.createDirectories(workDir.resolve("logs")).toString()).build();
    String podId = backend.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod).build()).getPodSandboxId();
    ContainerConfig web = ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("web"))
        .setImage(ImageSpec.newBuilder().setImage("busybox"))
        .addAllCommand(List.of("busybox", "httpd", "-f", "-p", "127.0.0.1:" + port, "-h", site.toString()))
        .setLogPath("web.log").build();
    String id = backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(podId).setConfig(web)
        .setSandboxConfig(pod).build()).getContainerId();
    backend.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
    while (true) {
      try {
        String state = backend.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build())
            .getStatus().getMessage();
        if (!state.contains(" RUNNING")) {
          throw new IOException("job not running yet: " + state);
        }
        direct(port);
        return new WebJob(podId, Long.parseLong(state.replaceAll(".*slurm job (\\d+).*", "$1")));
      } catch (IOException notYet) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("the web job did not listen on port " + port + " within 120 s", notYet);
        }
        Thread.sleep(200);
      }
    }
  }

  /**
   * What srun alone costs a step, the floor under every relay step: run on this host, whatever the
   * transport, as the job's user (Slurm lets only the job's owner add a step, root included).
   */
  private static long emptyStep(long jobId, String user) throws Exception {
    List<String> command = new ArrayList<>(user.equals(System.getProperty("user.name")) ? List.of() : List.of("runuser", "-u", user, "--"));
    command.addAll(List.of("srun", "--overlap", "--jobid=" + jobId, "--ntasks=1", "--quiet", "true"));
    long start = System.nanoTime();
    Process srun = new ProcessBuilder(command).redirectErrorStream(true).start();
    srun.getInputStream().readAllBytes();
    if (srun.waitFor() != 0) {
      throw new IllegalStateException("srun into job " + jobId + " failed");
    }
    return System.nanoTime() - start;
  }

  private static long direct(int port) throws IOException {
    long start = System.nanoTime();
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.getOutputStream().write(REQUEST);
      check(new String(socket.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }
    return System.nanoTime() - start;
  }

  private static long viaCrigate(Forwarded to) throws Exception {
    long start = System.nanoTime();
    String url = to.backend().portForward(PortForwardRequest.newBuilder().setPodSandboxId(to.web().podId()).build()).getUrl();
    int port = to.port();
    DataChannel data = new DataChannel();
    WebSocket socket = HTTP.newWebSocketBuilder().subprotocols("v4.channel.k8s.io")
        .buildAsync(URI.create(url.replaceFirst("^http", "ws") + "?port=" + port), data).get(30, TimeUnit.SECONDS);
    socket.sendBinary(ByteBuffer.allocate(REQUEST.length + 1).put((byte) 0).put(REQUEST).flip(), true).get(30, TimeUnit.SECONDS);
    check(data.closed.get(30, TimeUnit.SECONDS));
    return System.nanoTime() - start;
  }

  private static void check(String answer) {
    if (!answer.startsWith("HTTP/1.") || !answer.endsWith(PAGE)) {
      throw new IllegalStateException("unexpected answer: " + answer);
    }
  }

  /** Channel 0 of a v4 port forward, without its two-byte port prefix, complete when the server closes. */
  private static final class DataChannel implements WebSocket.Listener {
    final CompletableFuture<String> closed = new CompletableFuture<>();
    private final ByteArrayOutputStream data = new ByteArrayOutputStream();
    private final ByteArrayOutputStream message = new ByteArrayOutputStream();

    @Override
    public CompletionStage<?> onBinary(WebSocket socket, ByteBuffer bytes, boolean last) {
      byte[] part = new byte[bytes.remaining()];
      bytes.get(part);
      message.writeBytes(part);
      if (last) {
        byte[] whole = message.toByteArray();
        message.reset();
        if (whole.length > 0 && whole[0] == 0) {
          data.write(whole, 1, whole.length - 1);
        }
      }
      socket.request(1);
      return null;
    }

    @Override
    public CompletionStage<?> onClose(WebSocket socket, int status, String reason) {
      byte[] all = data.toByteArray();
      closed.complete(new String(all, Math.min(2, all.length), Math.max(0, all.length - 2), StandardCharsets.UTF_8));
      return null;
    }

    @Override
    public void onError(WebSocket socket, Throwable error) {
      closed.completeExceptionally(error);
    }
  }

  private static void report(String what, Samples samples) {
    System.out.printf("%-66s p50 %7.1f ms  p95 %7.1f ms  max %7.1f ms%n", what, samples.percentile(50) / 1e6,
        samples.percentile(95) / 1e6, samples.percentile(100) / 1e6);
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0)) {
      return socket.getLocalPort();
    }
  }
}

package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.container;
import static io.crigate.backend.slurm.SlurmCluster.create;
import static io.crigate.backend.slurm.SlurmCluster.env;
import static io.crigate.backend.slurm.SlurmCluster.pod;
import static io.crigate.backend.slurm.SlurmCluster.settings;
import static io.crigate.backend.slurm.SlurmCluster.start;
import static io.crigate.backend.slurm.SlurmCluster.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.api.cri.v1.RemovePodSandboxRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.StreamIo;
import io.crigate.spi.StreamingRuntime;
import io.crigate.spi.TerminalSize;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.channels.Channels;
import java.nio.channels.Pipe;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Interactive exec into a running Slurm job, the part of {@code kubectl exec -it} that is the
 * backend's: srun on this host (transport local) or on the login node over SSH (transport ssh),
 * against the real cluster and sshd of slurm-up.sh. The streaming server's protocols are
 * StreamingIT's (crigate-it); here the session's streams are the test's own.
 */
class InteractiveExecIT {

  private static final Duration WAIT = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private final CapturedStreams captured = new CapturedStreams();
  private SlurmBackend backend;
  private String[] ids;

  @AfterEach
  void removeThePod() {
    if (backend != null) {
      if (ids != null) {
        backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(ids[0]).build());
      }
      backend.close();
    }
  }

  /** A job that sleeps, running, on a backend whose streaming server is {@link #captured}. */
  private String runningJob(SlurmCluster.Transport transport) {
    return runningJob(settings(transport), Map.of());
  }

  private String runningJob(ObjectNode settings, Map<String, String> env) {
    backend = SlurmCluster.backend(settings, tmp.resolve("state"), captured);
    ids = create(backend, pod("exec-" + settings.path("transport").asText(), tmp.resolve("logs"), Map.of()),
        container("main", List.of("sleep", "300"), env));
    start(backend, ids[1]);
    await().atMost(WAIT).until(() -> status(backend, ids[1]).getMessage().contains(" RUNNING"));
    return ids[1];
  }

  /** Exec as the kubelet asks for it (stdin and stdout; stderr apart unless on a terminal), then the session, run. */
  private CompletableFuture<Integer> exec(String container, List<String> cmd, TestIo io) {
    ExecRequest request = ExecRequest.newBuilder().setContainerId(container).addAllCmd(cmd).setTty(io.tty())
        .setStdin(true).setStdout(true).setStderr(!io.tty()).build();
    backend.exec(request);
    StreamingRuntime runtime = captured.runtime;
    CompletableFuture.supplyAsync(() -> runtime.exec(request, io)).whenComplete((code, failure) -> {
      if (failure != null) {
        io.ended.completeExceptionally(failure);
      } else {
        io.ended.complete(code);
      }
    });
    return io.ended;
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = SlurmCluster.Transport.class, names = {"LOCAL", "SSH"})
  void onATerminalTheJobSeesTheClientsSizeAndItsChangesAndTheExitCodeComesBack(SlurmCluster.Transport transport)
      throws Exception {
    String container = runningJob(transport);
    List<String> cmd = List.of("/bin/sh", "-c", "while read line; do [ \"$line\" = end ] && exit 3; stty size; done");
    TestIo io = new TestIo(true, new TerminalSize(100, 30));
    CompletableFuture<Integer> exit = exec(container, cmd, io);

    io.typeUntilSeen("\n", "30 100"); // the size the client had when it connected
    io.resize(new TerminalSize(120, 40));
    io.typeUntilSeen("\n", "40 120"); // and the size it changed to
    io.type("end\n");

    assertThat(exit.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(3);
  }

  @ParameterizedTest(name = "{0}")
  @EnumSource(value = SlurmCluster.Transport.class, names = {"LOCAL", "SSH"})
  void withoutATerminalStdoutAndStderrStayApartAndStdinsEndReachesTheJob(SlurmCluster.Transport transport)
      throws Exception {
    String container = runningJob(transport);
    List<String> cmd = List.of("/bin/sh", "-c", "cat; echo to-stderr >&2; exit 4");
    TestIo io = new TestIo(false, new TerminalSize(0, 0));
    CompletableFuture<Integer> exit = exec(container, cmd, io);

    io.type("a line\nanother\n");
    io.closeStdin();

    assertThat(exit.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(4);
    assertThat(io.printed()).isEqualTo("a line\nanother\n");
    // srun adds its own line there when the command fails ("srun: error: <node>: task 0: Exited with
    // exit code 4"), before or after the command's, as srun's threads interleave them
    assertThat(io.printedToStderr()).contains("to-stderr\n").doesNotContain("a line");
  }

  /** A container with its own cluster login (multi-cri's CLUSTER_*) gets its terminal through that login's SSH sessions. */
  @Test
  void aContainersOwnClusterLoginTakesTheTerminalThroughThatLogin() throws Exception {
    ObjectNode settings = settings(SlurmCluster.Transport.LOCAL);
    settings.putObject("containerLogins").put("knownHostsFile", env("CRIGATE_SSH_KNOWN_HOSTS"));
    String container = runningJob(settings, ContainerLoginIT.login(ContainerLoginIT.password()));
    List<String> cmd = List.of("/bin/sh", "-c", "echo \"user=$(id -un)\"; read line; exit 5");
    TestIo io = new TestIo(true, new TerminalSize(100, 30));
    CompletableFuture<Integer> exit = exec(container, cmd, io);

    io.awaitPrinted("user=" + env("CRIGATE_SSH_PASSWORD_USER"));
    io.type("\n");

    assertThat(exit.get(WAIT.toSeconds(), TimeUnit.SECONDS)).isEqualTo(5);
  }

  @Test
  void overSlurmrestdItIsUnimplementedNamingWhatWorks() {
    String container = runningJob(SlurmCluster.Transport.REST);

    assertThatThrownBy(() -> backend.exec(ExecRequest.newBuilder().setContainerId(container).addCmd("sh").setTty(true)
        .setStdin(true).setStdout(true).build()))
        .isInstanceOf(CrigateException.Unimplemented.class)
        .hasMessageContaining("transport local").hasMessageContaining("transport ssh")
        .hasMessageContaining("own cluster login")
        .hasMessageContaining("through slurmrestd");
    assertThat(captured.runtime).as("no URL handed out").isNull();
  }

  /** The client's end of a session: stdin written by the test, both outputs kept, resizes sent on demand. */
  private static final class TestIo implements StreamIo {
    private final boolean tty;
    // a pipe, not PipedInput/OutputStream, which fail once the last thread that wrote has ended
    private final Pipe pipe = Pipe.open();
    private final OutputStream typing = Channels.newOutputStream(pipe.sink());
    private final InputStream stdin = Channels.newInputStream(pipe.source());
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private volatile TerminalSize size;
    private volatile Consumer<TerminalSize> resizes = size -> {};
    /** Completed by the test when the session's exec returns, so a wait for output stops at once. */
    final CompletableFuture<Integer> ended = new CompletableFuture<>();

    TestIo(boolean tty, TerminalSize size) throws IOException {
      this.tty = tty;
      this.size = size;
    }

    @Override
    public InputStream stdin() {
      return stdin;
    }

    @Override
    public OutputStream stdout() {
      return locked(out);
    }

    @Override
    public OutputStream stderr() {
      return tty ? stdout() : locked(err);
    }

    @Override
    public boolean tty() {
      return tty;
    }

    @Override
    public void onResize(Consumer<TerminalSize> listener) {
      resizes = listener;
      listener.accept(size);
    }

    void resize(TerminalSize next) {
      size = next;
      resizes.accept(next);
    }

    void type(String text) throws IOException {
      typing.write(text.getBytes(StandardCharsets.UTF_8));
      typing.flush();
    }

    void closeStdin() throws IOException {
      typing.close();
    }

    void awaitPrinted(String expected) {
      typeUntilSeen("", expected);
    }

    /** Types {@code text} again every half second until {@code expected} is in the output. */
    void typeUntilSeen(String text, String expected) {
      await("'%s' in the output".formatted(expected)).atMost(WAIT).pollInterval(Duration.ofMillis(500)).until(() -> {
        if (ended.isDone()) {
          throw new AssertionError("the session ended before '%s'; it printed: %s".formatted(expected, printed()));
        }
        type(text);
        return printed().contains(expected);
      });
    }

    String printed() {
      synchronized (out) {
        return out.toString(StandardCharsets.UTF_8);
      }
    }

    String printedToStderr() {
      synchronized (err) {
        return err.toString(StandardCharsets.UTF_8);
      }
    }

    private static OutputStream locked(ByteArrayOutputStream sink) {
      return new OutputStream() {
        @Override
        public void write(int b) {
          synchronized (sink) {
            sink.write(b);
          }
        }

        @Override
        public void write(byte[] b, int off, int len) {
          synchronized (sink) {
            sink.write(b, off, len);
          }
        }
      };
    }
  }
}

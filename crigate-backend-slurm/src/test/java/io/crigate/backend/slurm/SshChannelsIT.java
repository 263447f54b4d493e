package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.env;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.spi.CrigateException;
import io.crigate.spi.TerminalSize;
import io.grpc.Context;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 16 item 7, against a real OpenSSH sshd with its default {@code MaxSessions 10}. The shared
 * sshd of slurm-up.sh allows 64, so this test starts its own on a free loopback port, with the same
 * host key and authorized keys, and stops it afterwards.
 */
class SshChannelsIT {

  private static final String OPENSSH_DEFAULT_MAX_SESSIONS = "MaxSessions 10";

  @TempDir Path tmp;
  private Process sshd;
  private int port;
  private Path knownHosts;

  @BeforeEach
  void startSshd() throws Exception {
    Path infra = Path.of(env("CRIGATE_SSH_KEY")).getParent();
    try (ServerSocket probe = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = probe.getLocalPort();
    }
    Path config = Files.writeString(tmp.resolve("sshd_config"), String.join("\n",
        "Port " + port, "ListenAddress 127.0.0.1", "HostKey " + infra.resolve("host_ecdsa"),
        "PidFile " + tmp.resolve("sshd.pid"), "PermitRootLogin prohibit-password", "PasswordAuthentication no",
        "AuthorizedKeysFile " + infra.resolve("authorized_keys"), "UsePAM no", "StrictModes no",
        OPENSSH_DEFAULT_MAX_SESSIONS, "") );
    sshd = new ProcessBuilder("/usr/sbin/sshd", "-D", "-e", "-f", config.toString())
        .redirectErrorStream(true).redirectOutput(tmp.resolve("sshd.log").toFile()).start();
    await().atMost(Duration.ofSeconds(10)).until(() -> listening(port));
    String[] hostKey = Files.readString(infra.resolve("host_ecdsa.pub")).trim().split(" ");
    knownHosts = Files.writeString(tmp.resolve("known_hosts"), "[127.0.0.1]:%d %s %s%n".formatted(port, hostKey[0], hostKey[1]));
  }

  @AfterEach
  void stopSshd() throws InterruptedException {
    sshd.destroy();
    sshd.waitFor();
  }

  private SshCommandRunner runner(Integer channelsPerSession) {
    return new SshCommandRunner(new SlurmSettings.Ssh("127.0.0.1", port, "root", env("CRIGATE_SSH_KEY"), null,
        knownHosts.toString(), channelsPerSession));
  }

  @Test
  void moreConcurrentCommandsThanTheServersMaxSessionsAllSucceed() throws Exception {
    int commands = 25;
    try (SshCommandRunner runner = runner(null); ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<CommandResult>> results = IntStream.range(0, commands).mapToObj(i -> pool.submit(() ->
          runner.run(List.of("/bin/sh", "-c", "sleep 1; echo " + i), new byte[0]))).toList();
      for (int i = 0; i < commands; i++) {
        CommandResult result = results.get(i).get();
        assertThat(result.exitCode()).isZero();
        assertThat(new String(result.stdout(), StandardCharsets.UTF_8)).isEqualTo(i + "\n");
      }
    }
  }

  /** Told it may use more channels than the server allows, the refused ones fail alone: the session lives on. */
  @Test
  void aRefusedChannelFailsOnlyItsOwnCommand() throws Exception {
    int commands = 12;
    try (SshCommandRunner runner = runner(commands); ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor()) {
      List<Future<CommandResult>> results = IntStream.range(0, commands).mapToObj(i -> pool.submit(() ->
          runner.run(List.of("/bin/sh", "-c", "sleep 2; echo " + i), new byte[0]))).toList();
      int succeeded = 0;
      List<Throwable> refused = new ArrayList<>();
      for (Future<CommandResult> result : results) {
        try {
          assertThat(result.get().exitCode()).isZero();
          succeeded++;
        } catch (ExecutionException e) {
          refused.add(e.getCause());
        }
      }
      assertThat(succeeded).isGreaterThanOrEqualTo(10);
      assertThat(refused).allSatisfy(e -> assertThat(e).isInstanceOf(CrigateException.Unavailable.class)
          .hasMessageContaining("refused a channel").hasMessageContaining("ssh.maxChannelsPerSession"));
      assertThat(new String(runner.run(List.of("echo", "after"), new byte[0]).stdout(), StandardCharsets.UTF_8))
          .isEqualTo("after\n");
    }
  }

  /**
   * Interactive commands (kubectl exec sessions) take their channels from connections of their
   * own: with every one of those busy, a Slurm command still gets a channel at once.
   */
  @Test
  void openTerminalsNeverLeaveACommandWaitingForAChannel() throws Exception {
    ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    List<Interactive> open = new ArrayList<>();
    try (SshCommandRunner runner = runner(1)) {
      for (int i = 0; i < SshSessions.MAX_SESSIONS; i++) {
        open.add(runner.start(List.of("sleep", "60"), false, new TerminalSize(80, 24)));
      }
      CommandResult result = Context.current().withDeadlineAfter(15, TimeUnit.SECONDS, timer)
          .call(() -> runner.run(List.of("echo", "still served"), new byte[0]));

      assertThat(new String(result.stdout(), StandardCharsets.UTF_8)).isEqualTo("still served\n");
    } finally {
      open.forEach(Interactive::kill);
      timer.shutdownNow();
    }
  }

  /**
   * Each interactive command that has ended gives its channel back, also when MINA reported it
   * CLOSED while the close was still under way: with one channel a connection and eight
   * connections, the ninth lost channel would leave the next command waiting 10 s and failing.
   * Relays for port forwards ended this way about one in three.
   */
  @Test
  void everyEndedInteractiveCommandGivesItsChannelBack() throws Exception {
    try (SshCommandRunner runner = runner(1)) {
      for (int i = 0; i < 40; i++) {
        Interactive command = runner.start(List.of("/bin/sh", "-c", "echo " + i), false, new TerminalSize(80, 24));
        assertThat(new String(command.stdout().readAllBytes(), StandardCharsets.UTF_8)).isEqualTo(i + "\n");
        assertThat(command.waitFor()).as("command %d", i).isZero();
      }
    }
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException e) {
      return false;
    }
  }
}

package io.crigate.backend.slurm;

import static io.crigate.backend.slurm.SlurmCluster.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.api.cri.v1.*;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.sshd.common.util.io.PathUtils;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * multi-cri's per-container cluster logins (CLUSTER_HOST/PORT/USERNAME/PASSWORD) against the real
 * Slurm and an sshd that accepts the password of slurm-up.sh's user crigate-hpc. The backend's own
 * transport is local, as root, so every job seen as crigate-hpc's went through the container's login.
 */
class ContainerLoginIT {

  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private final List<SlurmBackend> backends = new ArrayList<>();

  @AfterEach
  void close() {
    backends.forEach(SlurmBackend::close);
  }

  private SlurmBackend backend(Path state, boolean loginsAllowed) {
    return backend(state, loginsAllowed, Clock.systemUTC());
  }

  private SlurmBackend backend(Path state, boolean loginsAllowed, Clock clock) {
    ObjectNode settings = settings(Transport.LOCAL);
    if (loginsAllowed) {
      settings.putObject("containerLogins").put("knownHostsFile", env("CRIGATE_SSH_KNOWN_HOSTS"));
    }
    SlurmBackend backend = SlurmCluster.backend(settings, state, clock);
    backends.add(backend);
    return backend;
  }

  static String password() throws IOException {
    return Files.readString(Path.of(env("CRIGATE_SSH_PASSWORD_FILE")));
  }

  /** The env that gives a container its own cluster login: the password user of slurm-up.sh's sshd. */
  static Map<String, String> login(String password) {
    Map<String, String> env = new HashMap<>();
    env.put("CLUSTER_HOST", "127.0.0.1");
    env.put("CLUSTER_PORT", env("CRIGATE_SSH_PORT"));
    env.put("CLUSTER_USERNAME", env("CRIGATE_SSH_PASSWORD_USER"));
    env.put("CLUSTER_PASSWORD", password);
    return env;
  }

  private static String createIn(SlurmBackend backend, String sandbox, ContainerConfig config) {
    return backend.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId(sandbox).setConfig(config)
        .build()).getContainerId();
  }

  @Test
  void jobsRunUnderTheContainersLoginAcrossARestartAndThePasswordIsStoredOnlySealed() throws Exception {
    Path state = tmp.resolve("state");
    String password = password();
    SlurmBackend first = backend(state, true);
    PodSandboxConfig pod = pod("login", tmp.resolve("logs"), Map.of());
    String sandbox = first.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(pod).build()).getPodSandboxId();
    String quick = createIn(first, sandbox, container("quick", List.of("/bin/sh", "-c", "id -un; echo via-login"),
        login(password)));
    String slow = createIn(first, sandbox, container("slow", List.of("sleep", "300"), login(password)));
    start(first, quick);
    start(first, slow);

    ContainerStatus done = awaitExited(first, quick);
    assertThat(done.getReason()).isEqualTo("Completed");
    Path log = tmp.resolve("logs/quick/0.log");
    await().atMost(Duration.ofSeconds(10)).until(() -> Files.exists(log) && Files.readString(log).contains("via-login"));
    assertThat(Files.readString(log)).contains("stdout F " + env("CRIGATE_SSH_PASSWORD_USER"));
    await().atMost(JOB_TIMEOUT).until(() -> status(first, slow).getMessage().contains(" RUNNING"));
    assertThat(jobUser(slow)).isEqualTo(env("CRIGATE_SSH_PASSWORD_USER"));

    // The password is nowhere in clear: not in the records, the job script or the work dir.
    assertThat(filesContaining(state, password)).isEmpty();
    assertThat(filesContaining(Path.of(env("CRIGATE_SLURM_WORKDIR"), sandbox), password)).isEmpty();
    first.close();

    // A restarted backend unseals the login, follows the job and can still cancel it as that user.
    SlurmBackend second = backend(state, true);
    assertThat(status(second, slow).getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    second.stopContainer(StopContainerRequest.newBuilder().setContainerId(slow).setTimeout(0).build());
    assertThat(status(second, slow).getReason()).isEqualTo("Cancelled");

    second.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build());
    assertThat(new RecordStore(new FileDurableStore(state.resolve("store"))).logins()).isEmpty();
  }

  @Test
  void aWrongPasswordIsPermissionDeniedAndLeavesNothingBehind() throws Exception {
    Path state = tmp.resolve("state");
    SlurmBackend backend = backend(state, true);
    String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(pod("wrong", tmp.resolve("logs"), Map.of())).build()).getPodSandboxId();

    assertThatThrownBy(() -> createIn(backend, sandbox, container("main", List.of("true"), login("not-it-3x!"))))
        .isInstanceOf(CrigateException.PermissionDenied.class)
        .hasMessageContaining(env("CRIGATE_SSH_PASSWORD_USER") + "@127.0.0.1")
        .hasMessageNotContaining("not-it-3x!");

    assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList()).isEmpty();
    assertThat(new RecordStore(new FileDurableStore(state.resolve("store"))).logins()).isEmpty();
    try (Stream<Path> left = Files.list(Path.of(env("CRIGATE_SLURM_WORKDIR"), sandbox))) {
      assertThat(left).isEmpty();
    }
  }

  /**
   * Issue 16 item 1: the daemon's own keys must never log a container in. slurm-up.sh's sshd reads
   * one AuthorizedKeysFile for every user, and it holds root's client key; that key is put where
   * MINA's default client looks ({@code ~/.ssh/id_ecdsa}, and named in {@code ~/.ssh/config}), and a
   * wrong password must still be refused. The pom points this JVM's user.home into target/, so the
   * real home of whoever runs the build is never touched.
   */
  @Test
  void theDaemonsOwnKeysNeverLogAContainerIn() throws Exception {
    Path home = PathUtils.getUserHomeFolder();
    assertThat(home.toString()).as("failsafe's user.home (crigate-backend-slurm/pom.xml)").contains("/target/");
    Path dotSsh = Files.createDirectories(home.resolve(".ssh"));
    Files.setPosixFilePermissions(dotSsh, PosixFilePermissions.fromString("rwx------"));
    Path key = Files.copy(Path.of(env("CRIGATE_SSH_KEY")), dotSsh.resolve("id_ecdsa"), StandardCopyOption.REPLACE_EXISTING);
    Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-------"));
    Files.writeString(dotSsh.resolve("config"), "Host *\n  IdentityFile " + key + "\n");
    try {
      SlurmBackend backend = backend(tmp.resolve("state"), true);
      String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
          .setConfig(pod("borrowed-key", tmp.resolve("logs"), Map.of())).build()).getPodSandboxId();
      assertThatThrownBy(() -> createIn(backend, sandbox, container("main", List.of("true"), login("x"))))
          .isInstanceOf(CrigateException.PermissionDenied.class);
      assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList()).isEmpty();
    } finally {
      SandboxDirectory.delete(dotSsh);
    }
  }

  @Test
  void loginsAreRefusedBeforeAnyConnectionUnlessEnabledAndTheHostIsKnown() throws Exception {
    SlurmBackend closed = backend(tmp.resolve("closed"), false);
    String sandbox = closed.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(pod("closed", tmp.resolve("logs"), Map.of())).build()).getPodSandboxId();
    assertThatThrownBy(() -> createIn(closed, sandbox, container("main", List.of("true"), login(password()))))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("containerLogins.knownHostsFile").hasMessageNotContaining(password());

    SlurmBackend open = backend(tmp.resolve("open"), true);
    String other = open.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(pod("unknown-host", tmp.resolve("logs"), Map.of())).build()).getPodSandboxId();
    Map<String, String> elsewhere = login(password());
    elsewhere.put("CLUSTER_HOST", "192.0.2.10");
    assertThatThrownBy(() -> createIn(open, other, container("main", List.of("true"), elsewhere)))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("192.0.2.10").hasMessageContaining(env("CRIGATE_SSH_KNOWN_HOSTS"));
    Map<String, String> noUser = login(password());
    noUser.remove("CLUSTER_USERNAME");
    assertThatThrownBy(() -> createIn(open, other, container("main", List.of("true"), noUser)))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("CLUSTER_USERNAME");
  }

  /**
   * Holds the thread it is armed for at that thread's next reading of the time. CreateContainer
   * first reads the time right after admitting the login, before the container is stored, which is
   * where a concurrent removal of the login's last container used to forget the login.
   */
  private static final class GateClock extends Clock {
    final CountDownLatch reached = new CountDownLatch(1);
    final CountDownLatch go = new CountDownLatch(1);
    private volatile Thread armed;

    void armForThisThread() {
      armed = Thread.currentThread();
    }

    @Override
    public Instant instant() {
      if (Thread.currentThread() == armed) {
        armed = null;
        reached.countDown();
        try {
          go.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }
      return Instant.now();
    }

    @Override
    public ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(ZoneId zone) {
      return this;
    }
  }

  /** Issue 16 item 10: removing a login's last container while a new one is admitted with it. */
  @Test
  void removingALoginsLastContainerNeverForgetsTheLoginANewContainerWasJustAdmittedWith() throws Exception {
    Path state = tmp.resolve("state");
    GateClock clock = new GateClock();
    SlurmBackend backend = backend(state, true, clock);
    String sandbox = backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
        .setConfig(pod("login-race", tmp.resolve("logs"), Map.of())).build()).getPodSandboxId();
    String old = createIn(backend, sandbox, container("old", List.of("true"), login(password())));

    CompletableFuture<String> fresh = CompletableFuture.supplyAsync(() -> {
      clock.armForThisThread();
      try {
        return createIn(backend, sandbox, container("new", List.of("/bin/sh", "-c", "echo after-race"),
            login(password())));
      } catch (IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }, task -> Thread.ofPlatform().name("create-new").start(task));
    assertThat(clock.reached.await(30, TimeUnit.SECONDS)).as("CreateContainer admitted the login").isTrue();
    backend.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(old).build());
    clock.go.countDown();
    String id = fresh.get(30, TimeUnit.SECONDS);

    assertThat(new RecordStore(new FileDurableStore(state.resolve("store"))).logins()).hasSize(1);
    start(backend, id);
    assertThat(awaitExited(backend, id).getReason()).isEqualTo("Completed");
    backend.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build());
    assertThat(new RecordStore(new FileDurableStore(state.resolve("store"))).logins()).isEmpty();
  }

  private ContainerStatus awaitExited(SlurmBackend backend, String id) {
    await().atMost(JOB_TIMEOUT).until(() -> status(backend, id).getState() == ContainerState.CONTAINER_EXITED);
    return status(backend, id);
  }

  private static String jobUser(String containerId) throws Exception {
    Process squeue = new ProcessBuilder("squeue", "--noheader", "--states=all",
        "--name=" + SlurmClient.NAME_PREFIX + containerId, "--format=%u").start();
    String out = new String(squeue.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    assertThat(squeue.waitFor()).isZero();
    return out;
  }

  private static List<Path> filesContaining(Path root, String secret) throws IOException {
    byte[] needle = secret.getBytes(StandardCharsets.UTF_8);
    try (Stream<Path> files = Files.walk(root)) {
      return files.filter(Files::isRegularFile).filter(file -> {
        try {
          return indexOf(Files.readAllBytes(file), needle) >= 0;
        } catch (IOException e) {
          throw new java.io.UncheckedIOException(e);
        }
      }).toList();
    }
  }

  private static int indexOf(byte[] haystack, byte[] needle) {
    outer:
    for (int i = 0; i + needle.length <= haystack.length; i++) {
      for (int j = 0; j < needle.length; j++) {
        if (haystack[i + j] != needle[j]) {
          continue outer;
        }
      }
      return i;
    }
    return -1;
  }
}

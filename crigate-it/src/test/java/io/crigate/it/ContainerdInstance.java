package io.crigate.it;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A containerd of a test's own, started with scripts/infra/containerd.sh (the same configuration as
 * A and B), that the test may take away and bring back without disturbing other tests.
 */
final class ContainerdInstance implements BeforeAllCallback, AfterAllCallback {

  private final Infra infra;
  private final String name;

  ContainerdInstance(Infra infra, String name) {
    this.infra = infra;
    this.name = name;
  }

  String endpoint() {
    return "unix://" + infra.dir().resolve("containerd-" + name).resolve("containerd.sock");
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    script("start");
  }

  /** Ends its containers and stops it. */
  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    // A test that failed while its daemon was frozen must not leave it so: the stop asks it first.
    Path pidFile = infra.dir().resolve("pids/containerd-" + name);
    if (Files.exists(pidFile) && ProcessHandle.of(Long.parseLong(Files.readString(pidFile).strip())).isPresent()) {
      thaw();
    }
    script("stop");
  }

  /** Stops the daemon alone, as a crash or an upgrade would: its containers keep running in their shims. */
  void stopDaemon() throws IOException {
    ProcessHandle daemon = daemon();
    daemon.destroy();
    await("containerd " + name + " exit").atMost(Duration.ofSeconds(30)).until(() -> !daemon.isAlive());
  }

  void startDaemon() throws Exception {
    script("start");
  }

  /**
   * SIGSTOP: the daemon keeps its socket open and accepts connections but answers nothing, as a
   * runtime stuck in a kernel call or a swap storm does. Only this test's own instance is ever frozen.
   */
  void freeze() throws Exception {
    signal("STOP");
    // kill returns once the signal is sent; on a loaded machine a thread of the daemon may still
    // answer a request before it stops, so wait until every thread is seen stopped
    long pid = daemon().pid();
    await("containerd " + name + " stopped").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
        .until(() -> allThreadsStopped(pid));
  }

  /** Every thread's state in /proc is T (stopped) or t (traced); the state follows the name's ')'. */
  private static boolean allThreadsStopped(long pid) throws IOException {
    try (Stream<Path> tasks = Files.list(Path.of("/proc", Long.toString(pid), "task"))) {
      return tasks.allMatch(task -> {
        try {
          String stat = Files.readString(task.resolve("stat"));
          char state = stat.charAt(stat.lastIndexOf(')') + 2);
          return state == 'T' || state == 't';
        } catch (IOException gone) {
          return true; // a thread that ended answers nothing
        }
      });
    }
  }

  /** SIGCONT: the frozen daemon carries on where it stopped. */
  void thaw() throws Exception {
    signal("CONT");
  }

  private void signal(String name) throws Exception {
    Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(daemon().pid())).inheritIO().start();
    if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
      throw new IllegalStateException("kill -%s containerd %s failed".formatted(name, this.name));
    }
  }

  private ProcessHandle daemon() throws IOException {
    long pid = Long.parseLong(Files.readString(infra.dir().resolve("pids/containerd-" + name)).strip());
    return ProcessHandle.of(pid).orElseThrow(() -> new IllegalStateException("containerd " + name + " not running"));
  }

  private void script(String action) throws Exception {
    Path script = Infra.repositoryRoot().resolve("scripts/infra/containerd.sh");
    ProcessBuilder builder = new ProcessBuilder("bash", script.toString(), action, name).inheritIO();
    builder.environment().put("CRIGATE_INFRA_DIR", infra.dir().toString());
    Process process = builder.start();
    if (!process.waitFor(120, TimeUnit.SECONDS) || process.exitValue() != 0) {
      process.destroyForcibly();
      throw new IllegalStateException("containerd.sh %s %s failed".formatted(action, name));
    }
  }
}

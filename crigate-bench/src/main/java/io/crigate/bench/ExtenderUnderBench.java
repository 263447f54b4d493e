package io.crigate.bench;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@code bin/crigate extender} process started as an admin starts it, against an API server named
 * by a kubeconfig, and measured from outside: how long until it serves (it lists every Node, Pod
 * and NodeImageLayers before it opens its port), its live heap, its peak resident memory.
 *
 * @param startToServing from launch until the port accepted a connection: JVM start plus the informers' initial lists
 */
record ExtenderUnderBench(Process process, Path log, Duration startToServing) implements AutoCloseable {

  private static final Duration STARTUP_LIMIT = Duration.ofMinutes(15);
  private static final String GC_LOG = "extender-gc.log";
  /** {@code -Xlog:gc}'s line for a pause, e.g. {@code GC(5) Pause Young (Normal) (G1 Evacuation Pause) 294M->86M(384M) 4.221ms}. */
  private static final Pattern PAUSE = Pattern.compile("\\bPause .* ([0-9.]+)ms$");

  /**
   * @param javaOptions added to {@code bin/crigate}'s own through {@code CRIGATE_JAVA_OPTS} (later
   *     options win), e.g. another collector; empty for the extender as shipped
   */
  static ExtenderUnderBench start(Path repository, Path workDir, Path kubeconfig, int port, String registry,
      String javaOptions) throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    Path log = workDir.resolve("extender.log");
    ProcessBuilder builder = new ProcessBuilder(repository.resolve("bin/crigate").toString(), "extender",
        "--port", Integer.toString(port), "--allow-registry", registry)
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    // the mock API server answers a list of thousands of objects on one event loop: slower than
    // fabric8's default 10 s request timeout while the machine is loaded
    builder.environment().put("KUBERNETES_REQUEST_TIMEOUT", "600000");
    builder.environment().put("CRIGATE_JAVA_OPTS", ("-Xlog:gc:file=" + workDir.resolve(GC_LOG) + " " + javaOptions).trim());
    long launched = System.nanoTime();
    Process process = builder.start();
    while (!listening(port)) {
      if (!process.isAlive()) {
        throw new IllegalStateException("crigate extender exited during start; see " + log);
      }
      if (System.nanoTime() - launched > STARTUP_LIMIT.toNanos()) {
        process.destroyForcibly();
        throw new IllegalStateException("crigate extender did not serve within " + STARTUP_LIMIT + "; see " + log);
      }
      Thread.sleep(20);
    }
    return new ExtenderUnderBench(process, log, Duration.ofNanos(System.nanoTime() - launched));
  }

  private static boolean listening(int port) {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
      return true;
    } catch (IOException notYet) {
      return false;
    }
  }

  /** The collector's pauses so far, in milliseconds, in order, from its {@code -Xlog:gc} log. */
  List<Double> gcPausesMillis() throws IOException {
    List<Double> pauses = new ArrayList<>();
    for (String line : Files.readAllLines(log.resolveSibling(GC_LOG))) {
      Matcher pause = PAUSE.matcher(line);
      if (pause.find()) {
        pauses.add(Double.parseDouble(pause.group(1)));
      }
    }
    return pauses;
  }

  /** Each live thread's name and CPU time so far ({@link ProcessCpu#threads}). */
  java.util.Map<Long, ProcessCpu.ThreadCpu> threads() throws IOException {
    return ProcessCpu.threads(process.pid());
  }

  /**
   * Starts a JFR recording into {@code file}: the profile settings (allocation samples among them)
   * with an execution sample every millisecond, where their 10 ms gives ~200 samples over a 2-second series.
   */
  void startRecording(Path file) throws IOException, InterruptedException {
    jcmd("JFR.start", "name=series", "settings=profile", "jdk.ExecutionSample#period=1ms", "filename=" + file);
  }

  /** Stops the recording {@link #startRecording} started, which writes its file. */
  void stopRecording() throws IOException, InterruptedException {
    jcmd("JFR.stop", "name=series");
  }

  /** {@code jcmd GC.class_histogram}: a full GC, then the live objects by class, largest first. */
  String classHistogram() throws IOException, InterruptedException {
    return jcmd("GC.class_histogram");
  }

  String heapInfo() throws IOException, InterruptedException {
    jcmd("GC.run");
    return jcmd("GC.heap_info");
  }

  /** A line of {@code /proc/<pid>/status}, e.g. {@code VmHWM} (peak resident set) or {@code VmRSS}, in KiB. */
  long statusKib(String field) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
      if (line.startsWith(field + ":")) {
        return Long.parseLong(line.replaceAll("[^0-9]", ""));
      }
    }
    throw new IllegalStateException("no " + field + " in /proc/" + process.pid() + "/status");
  }

  private String jcmd(String... command) throws IOException, InterruptedException {
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    List<String> line = new ArrayList<>(List.of(jcmd.toString(), Long.toString(process.pid())));
    line.addAll(List.of(command));
    Process run = new ProcessBuilder(line).redirectErrorStream(true).start();
    String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (run.waitFor() != 0) {
      throw new IllegalStateException("jcmd " + String.join(" ", command) + " failed: " + out);
    }
    return out;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(30, TimeUnit.SECONDS)) {
      process.destroyForcibly();
    }
  }
}

package io.crigate.bench;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A {@code bin/crigate extender} process, as kube-scheduler would find it: plain HTTP on loopback,
 * its inventories, nodes and pods read from the API server named by {@code kubeconfig}.
 */
final class ExtenderProcess implements AutoCloseable {

  /** At load average 30 on 2 cores the extender took over 2 minutes to list and serve. */
  private static final Duration STARTUP_LIMIT = Duration.ofMinutes(5);

  private final Process process;
  private final ExtenderClient client;

  private ExtenderProcess(Process process, ExtenderClient client) {
    this.process = process;
    this.client = client;
  }

  /**
   * Starts the extender on {@code port}, allowed to read manifests from {@code registry}, and returns
   * once it answers a prioritize call (its informers have listed by then).
   */
  static ExtenderProcess start(Path repository, Path workDir, Path kubeconfig, int port, String registry)
      throws IOException, InterruptedException {
    Files.createDirectories(workDir);
    ProcessBuilder builder = new ProcessBuilder(repository.resolve("bin/crigate").toString(), "extender",
        "--listen", "127.0.0.1", "--port", Integer.toString(port), "--allow-registry", registry);
    builder.environment().put("KUBECONFIG", kubeconfig.toString());
    Process process = builder.redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(workDir.resolve("extender.log").toFile())).start();
    ExtenderClient client = new ExtenderClient("http://127.0.0.1:%d/crigate".formatted(port));
    Pod probe = new PodBuilder().withNewMetadata().withName("probe").withNamespace("default").endMetadata()
        .withNewSpec().addNewContainer().withName("probe").withImage(registry + "/none/none:v1").endContainer()
        .endSpec().build();
    long deadline = System.nanoTime() + STARTUP_LIMIT.toNanos();
    while (true) {
      if (!process.isAlive()) {
        throw new IllegalStateException("crigate extender exited during start; see " + workDir.resolve("extender.log"));
      }
      try {
        client.prioritize(probe, List.of());
        return new ExtenderProcess(process, client);
      } catch (RuntimeException notYet) {
        if (System.nanoTime() > deadline) {
          process.destroyForcibly();
          throw new IllegalStateException("crigate extender did not answer within " + STARTUP_LIMIT, notYet);
        }
        Thread.sleep(100);
      }
    }
  }

  ExtenderClient client() {
    return client;
  }

  @Override
  public void close() throws InterruptedException {
    process.destroy();
    if (!process.waitFor(15, TimeUnit.SECONDS)) {
      process.destroyForcibly().waitFor();
    }
  }
}

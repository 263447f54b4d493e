package io.crigate.it;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Runs one real crigate for a test class against the infrastructure from {@link Infra}, in a fresh
 * temporary directory that holds its socket, state and log. Register it as a static field:
 * <pre>{@code
 * @RegisterExtension
 * static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA());
 * }</pre>
 */
final class CrigateExtension implements BeforeAllCallback, AfterAllCallback, TestWatcher {

  private final List<String> backends;
  private final String configYaml;
  private Path workDir;
  private CrigateProcess process;
  private volatile boolean anyTestFailed;

  private CrigateExtension(List<String> backends, String configYaml) {
    this.backends = backends;
    this.configYaml = configYaml;
  }

  /** @param backends {@code handler:endpoint} pairs, as {@code serve --remote-runtime-endpoints} takes them */
  static CrigateExtension routing(String... backends) {
    return new CrigateExtension(List.of(backends), "");
  }

  /**
   * A crigate that hosts NRI on {@code socket} (an {@code nri} section before {@code yaml}) for
   * containerd 1.6, which has none; with {@code hooks.mode: nri} in {@code yaml} it leaves the hooks
   * to a {@code crigate nri-plugin} on that socket ({@link CrigateCommand#nriPlugin}).
   */
  static CrigateExtension nriHost(Path socket, String yaml, String... backends) {
    return routing(backends).withConfig("nri:\n  socket: %s\n".formatted(socket) + yaml);
  }

  /** The same crigate, also given a configuration file ({@code --config}) with {@code yaml}. */
  CrigateExtension withConfig(String yaml) {
    return new CrigateExtension(backends, yaml);
  }

  CrigateProcess process() {
    return process;
  }

  CriConnection cri() {
    return process.cri();
  }

  /** A directory for this class's pod logs and other files, removed with the rest afterwards. */
  Path workDir() {
    return workDir;
  }

  @Override
  public void beforeAll(ExtensionContext context) throws Exception {
    workDir = Files.createTempDirectory("crigate-it-");
    process = CrigateProcess.start(workDir, backends, configYaml);
  }

  @Override
  public void afterAll(ExtensionContext context) throws Exception {
    if (process != null) {
      process.close();
    }
    // Kept on failure: the log and state are what one needs to understand it.
    if (anyTestFailed || context.getExecutionException().isPresent()) {
      System.err.println("crigate work directory kept for inspection: " + workDir);
    } else {
      deleteTree(workDir);
    }
  }

  @Override
  public void testFailed(ExtensionContext context, Throwable cause) {
    anyTestFailed = true;
  }

  private static void deleteTree(Path dir) throws Exception {
    try (var paths = Files.walk(dir)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(path);
      }
    }
  }
}

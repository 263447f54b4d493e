package io.crigate.it;

import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A crigate that a test starts itself, when its command line or configuration is what the test is
 * about, with the policy pods made through it. Registered as an extension, it removes the pods,
 * then stops crigate, after each test.
 */
final class PerTestCrigate implements AfterEachCallback {

  private CrigateProcess process;
  private PolicyPods pods;

  /** Takes over {@code started}; its pods log under {@code podLogs}. */
  PolicyPods adopt(CrigateProcess started, Path podLogs, Infra infra) {
    process = started;
    pods = new PolicyPods(() -> process, podLogs, infra);
    return pods;
  }

  CrigateProcess process() {
    return process;
  }

  @Override
  public void afterEach(ExtensionContext context) throws Exception {
    if (pods != null) {
      pods.removeAll();
    }
    if (process != null) {
      process.close();
    }
    pods = null;
    process = null;
  }
}

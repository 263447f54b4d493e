package io.crigate.policy;

import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/** Refuses a pinning policy while the kubelet's own CPU manager pins too: two owners of one cpuset fight. */
final class KubeletCpuManager {

  private static final Pattern STATIC = Pattern.compile("\"policyName\"\\s*:\\s*\"static\"");

  private KubeletCpuManager() {}

  static void checkCompatible(String policy, Path stateFile) {
    if (policy.equals("none") || !Files.isReadable(stateFile)) {
      return;
    }
    try {
      if (STATIC.matcher(Files.readString(stateFile)).find()) {
        throw new CrigateException.FailedPrecondition(("policy '%s' cannot run while the kubelet CPU manager uses the static "
            + "policy (%s): restart the kubelet with --cpu-manager-policy=none and remove that file, or keep crigate's policy "
            + "'none' (policy.kubeletCpuManagerState names another state file)")
            .formatted(policy, stateFile));
      }
    } catch (IOException e) {
      throw new CrigateException.FailedPrecondition("cannot read %s: %s".formatted(stateFile, e.getMessage()));
    }
  }
}

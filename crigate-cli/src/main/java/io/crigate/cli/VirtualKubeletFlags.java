package io.crigate.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Option;

/**
 * The flags of interLink's first virtual kubelet ({@code vk}: Virtual Kubelet's node-cli with the
 * KNoC provider) that {@code crigate virtual-node} takes as written: those with a crigate meaning
 * map to it, the rest are accepted with one warning each.
 */
final class VirtualKubeletFlags {

  @Option(names = "--provider", paramLabel = "NAME",
      description = "interLink's vk provider; only knoc, whose part crigate's node plays. Sets the taint "
          + "virtual-kubelet.io/provider=knoc:NoSchedule.")
  String provider;

  @Option(names = "--provider-config", paramLabel = "FILE",
      description = "KNoC's knoc-cfg.json: the node's cpu, memory and pods (default $VK_CONFIG_PATH); --capacity wins.")
  Path providerConfig;

  @Option(names = "--startup-timeout", paramLabel = "DURATION", description = "Accepted from interLink's vk, with a warning.")
  String startupTimeout;

  @Option(names = "--log-level", paramLabel = "LEVEL", description = "Root log level: trace, debug, info, warn, error.")
  String logLevel;

  @Option(names = "--klog.v", paramLabel = "N", description = "Accepted from interLink's vk, with a warning.")
  String klogVerbosity;

  @Option(names = "--klog.logtostderr", arity = "0..1", fallbackValue = "true",
      description = "Accepted from interLink's vk, with a warning.")
  String klogToStderr;

  /** Sets the log level; returns one warning per flag accepted without effect. */
  List<String> apply() {
    if (logLevel != null) {
      Logging.parse(logLevel, null).apply(null);
    }
    List<String> warnings = new ArrayList<>();
    if (startupTimeout != null) {
      warnings.add("--startup-timeout %s: crigate's node has no start-up deadline; it retries the API server and the "
          .formatted(startupTimeout) + "interLink API until they answer");
    }
    if (klogVerbosity != null) {
      warnings.add("--klog.v %s: crigate's Kubernetes client logs at --log-level".formatted(klogVerbosity));
    }
    if (klogToStderr != null) {
      warnings.add("--klog.logtostderr: crigate always logs to standard error");
    }
    return warnings;
  }
}

package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.spi.config.PortNumber;
import java.util.List;

/** multi-cri's documented flags (its README's option list, plus glog's {@code -v} used in its example). */
final class MultiCriFlags {

  static final String HANDLER = "multicri";
  /** Where multi-cri listens when --socket-path is not given (its README's option list). */
  static final String DEFAULT_SOCKET = "/var/run/multicri.sock";

  private static final String LOG_FILES_REFUSED = "crigate writes its log to standard error only; under systemd the "
      + "journal keeps it, otherwise redirect standard error to the file";

  private MultiCriFlags() {}

  static List<SeedFlag> all() {
    return List.of(
        value("socket-path", (flag, v, t) -> t.map(flag, "socket", v)),
        value("root-dir", (flag, v, t) -> t.map(flag, "stateDir", v)),
        value("stream-addr", (flag, v, t) -> t.map(flag, "streaming.address", v)),
        value("stream-port", (flag, v, t) -> t.map(flag, "streaming.port", JsonNodeFactory.instance.numberNode(port(flag, v)))),
        value("adapter-name", (flag, v, t) -> t.adapter = v),
        value("sandbox-image", SeedFlag.warned(
            "crigate's backends need no pause image: the slurm backend's sandbox is a directory, and the cri "
                + "backend's runtime uses its own sandbox image setting")),
        bool("enable-pod-persistence", SeedFlag.warned(
            "always on: crigate keeps pods and containers in its ownership database under the state directory")),
        bool("enable-pod-network", (flag, v, t) -> {
          if (!"false".equals(v)) {
            t.findings.refused(flag, "crigate does not set up CNI networks for Slurm pods; pods on a cri backend "
                + "get the network of that runtime's CNI configuration");
          }
        }),
        value("network-bin-dir", SeedFlag.warned(
            "crigate runs no CNI plugins itself; the cri backend's runtime has its own CNI bin dir")),
        value("network-conf-dir", SeedFlag.warned(
            "crigate runs no CNI plugins itself; the cri backend's runtime has its own CNI conf dir")),
        value("resources-cache-path", SeedFlag.warned(
            "crigate keeps its records in the state directory (--root-dir) and images are pulled where the job runs")),
        value("stderrthreshold", SeedFlag.warned("crigate logs every level to standard error")),
        // the rest of klog's flags, which multi-cri's main registers; pflag takes log_dir and log-dir alike
        bool("logtostderr", SeedFlag.warned("crigate always logs to standard error")),
        bool("alsologtostderr", SeedFlag.warned("crigate always logs to standard error")),
        value("log-dir", SeedFlag.refused(LOG_FILES_REFUSED)),
        value("log-file", SeedFlag.refused(LOG_FILES_REFUSED)),
        value("vmodule", SeedFlag.warned(
            "crigate's components are Java loggers, not Go files: set logging.levels (docs/operations.md)")),
        value("log-backtrace-at", SeedFlag.warned("crigate logs the stack trace with every unexpected error")),
        value("log-flush-frequency", SeedFlag.warned("crigate writes each log line as it is logged")),
        value("v", (flag, v, t) -> t.map(flag, "logLevel", glogLevel(flag, v))));
  }

  /** The slurm backend multi-cri's adapter becomes: handler {@code multicri}, jobs under $HOME/$CRI_SLURM_MOUNT_PATH. */
  static void addAdapter(Translation t) {
    if (!t.adapter.equals("slurm")) {
      t.findings.refused("--adapter-name " + t.adapter, "multi-cri has no adapter '%s'; crigate's backend types are cri and slurm"
          .formatted(t.adapter));
      return;
    }
    String mount = t.environment.getOrDefault("CRI_SLURM_MOUNT_PATH", "multi-cri");
    String workDir = mount.startsWith("/") ? mount : t.environment.getOrDefault("HOME", "/root") + "/" + mount;
    ObjectNode backend = JsonNodeFactory.instance.objectNode();
    backend.put("name", "slurm");
    backend.put("type", "slurm");
    backend.putArray("handlers").add(HANDLER);
    backend.put("workDir", workDir);
    t.settings.withArray("backends").add(backend);
    t.findings.mapped("--adapter-name slurm", "backends: slurm backend serving RuntimeClass handler '%s', workDir %s"
        .formatted(HANDLER, workDir));
    for (String variable : List.of("CRI_SLURM_BUILD_IN_CLUSTER", "CRI_SLURM_IMAGE_REMOTE_MOUNT")) {
      if (t.environment.containsKey(variable)) {
        t.findings.ignored(variable, "crigate's slurm backend runs images with the configured runner "
            + "(apptainer, singularity, enroot, podman) where the job runs; there is no separate image build");
      }
    }
  }

  private static int port(String flag, String value) {
    return PortNumber.parse(value, 0).orElseThrow(
        () -> new IllegalArgumentException("%s: '%s' is not a port number (0-65535)".formatted(flag, value)));
  }

  /** glog verbosity: 0-1 is crigate's info, 2-4 debug, 5 and above trace. */
  private static String glogLevel(String flag, String value) {
    try {
      int v = Integer.parseInt(value.strip());
      return v <= 1 ? "info" : v <= 4 ? "debug" : "trace";
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("%s: '%s' is not a verbosity number".formatted(flag, value));
    }
  }

  private static SeedFlag value(String name, SeedFlag.Action action) {
    return SeedFlag.of(SeedFlag.MULTI_CRI, name, true, action);
  }

  private static SeedFlag bool(String name, SeedFlag.Action action) {
    return SeedFlag.of(SeedFlag.MULTI_CRI, name, false, action);
  }
}

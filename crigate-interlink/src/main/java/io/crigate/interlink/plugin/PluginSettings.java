package io.crigate.interlink.plugin;

import io.crigate.interlink.wire.PingResponse;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plugin's own settings.
 *
 * @param volumeDir where pod volumes are written; for Slurm, a directory the compute nodes share
 * @param logDir where the backend writes the containers' CRI logs (containerd or the Slurm log pump)
 * @param pollInterval how often pods waiting on an init container are moved on, and logs followed
 * @param runtimeHandler the CRI runtime handler asked of the backend (empty for its default)
 * @param resources what a ping reports as the node's capacity
 * @param taints what a ping asks the virtual node to carry
 */
public record PluginSettings(Path volumeDir, Path logDir, Duration pollInterval, String runtimeHandler,
    PingResponse.Resources resources, List<PingResponse.Taint> taints) {

  /** The capacity this plugin reports, as quantities: what a container's unset limit stands for. */
  Map<String, Quantity> allocatable() {
    Map<String, Quantity> amounts = new LinkedHashMap<>();
    if (resources != null && resources.cpu() != null) {
      amounts.put("cpu", new Quantity(resources.cpu()));
    }
    if (resources != null && resources.memory() != null) {
      amounts.put("memory", new Quantity(resources.memory()));
    }
    return amounts;
  }

  public static PluginSettings under(Path dir) {
    return new PluginSettings(dir.resolve("volumes"), dir.resolve("logs"), Duration.ofMillis(500), "",
        new PingResponse.Resources("2", "2Gi", "100", List.of()), List.of());
  }

  public PluginSettings withPollInterval(Duration interval) {
    return new PluginSettings(volumeDir, logDir, interval, runtimeHandler, resources, taints);
  }

  public PluginSettings withVolumeDir(Path dir) {
    return new PluginSettings(dir, logDir, pollInterval, runtimeHandler, resources, taints);
  }

  public PluginSettings withResources(PingResponse.Resources capacity, List<PingResponse.Taint> nodeTaints) {
    return new PluginSettings(volumeDir, logDir, pollInterval, runtimeHandler, capacity, nodeTaints);
  }
}

package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.adjust.PluginInitContext;
import java.nio.file.Path;

/**
 * Builds the {@code policy} adjustment plugin from the configuration section, with its live file
 * when {@code configFile} is set. The file watch ends when the plugin is closed.
 */
public final class PolicyPlugin {

  private PolicyPlugin() {}

  /** @throws io.crigate.spi.CrigateException.InvalidArgument naming the field of a bad section */
  public static ActivePolicy create(JsonNode section, PluginInitContext context) {
    String configFile = section.path("configFile").asText("");
    if (configFile.isEmpty()) {
      return ActivePolicy.create(PolicyLayers.of(section), context.store(), context.updater(),
          PolicyMetrics.in(context.metrics()));
    }
    Path file = Path.of(configFile);
    ActivePolicy policy = ActivePolicy.create(PolicyFile.layered(file, PolicyLayers.of(section)), context.store(), context.updater(),
        PolicyMetrics.in(context.metrics()));
    policy.closeWith(PolicyFile.watch(file, policy));
    return policy;
  }
}

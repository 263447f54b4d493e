package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.CpuLoad;
import java.util.function.Function;

/**
 * The extender's verbs from request bytes to answer bytes, without HTTP: what {@link ExtenderServer}
 * runs for each call, and what a benchmark calls in process to tell the verb's cost from the
 * transport's. Bad input throws {@link io.crigate.spi.CrigateException.InvalidArgument}.
 */
public final class ExtenderVerbs {

  private final LayerExtender extender;
  private final ExtenderJson json = new ExtenderJson();

  /**
   * @param loads each node's CPU load by name, e.g. {@link NodeLoads}, which a {@link NodeLoadInformer} keeps current
   * @param registry looks an image reference up, e.g. {@code RegistryClient::layers} (caches)
   */
  public ExtenderVerbs(LayerIndex inventories, NodeLoads loads, Function<String, ImageLayers> registry) {
    this.extender = new LayerExtender(inventories, loads, registry);
  }

  /** {@code ExtenderArgs} JSON in, {@code HostPriorityList} JSON out. */
  public byte[] prioritize(byte[] body) {
    return json.priorities(extender.prioritize(json.parseArgs(body)));
  }

  /** {@code ExtenderArgs} JSON in, {@code ExtenderFilterResult} JSON out. */
  public byte[] filter(byte[] body) {
    return json.filterResult(extender.filter(json.parseArgs(body)));
  }
}

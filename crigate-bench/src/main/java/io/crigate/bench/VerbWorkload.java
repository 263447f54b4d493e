package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.images.ImageLayers;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.extender.ExtenderVerbs;
import io.crigate.scheduler.extender.LayerIndex;
import io.crigate.scheduler.extender.NodeLoads;
import io.crigate.scheduler.extender.NodeTable;
import io.crigate.scheduler.sim.ImageCatalog;
import java.io.ByteArrayInputStream;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * One prioritize call at cluster scale, in process, built only from the extender's public classes
 * so that {@link VerbSideBySide} can run it against another checkout's build: 5,000 nodes named as
 * on EC2 (~40 characters, as in {@link ScaleCluster}), each holding 100 images of a generated
 * catalog and a distinct CPU load, and a named pod with an init and a regular container, sent with
 * every node name.
 */
public final class VerbWorkload {

  static final int NODES = 5000;

  private VerbWorkload() {}

  /** A call ready to repeat: same request each time, the answer's bytes dropped. */
  public static Runnable prepare() throws Exception {
    ImageCatalog catalog = ImageCatalog.generate(42, 1000);
    SplittableRandom random = new SplittableRandom(42);
    NodeTable nodes = new NodeTable();
    LayerIndex index = new LayerIndex(nodes);
    NodeLoads loads = new NodeLoads(nodes);
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode request = mapper.createObjectNode();
    ObjectNode pod = request.putObject("Pod");
    pod.putObject("metadata").put("name", "web-0").put("namespace", "shop");
    ObjectNode spec = pod.putObject("spec");
    spec.putArray("initContainers").addObject().put("name", "init").put("image", catalog.images().get(3).reference());
    spec.putArray("containers").addObject().put("name", "app").put("image", catalog.images().get(7).reference())
        .putObject("resources").putObject("requests").put("cpu", "500m");
    request.putNull("Nodes");
    var names = request.putArray("NodeNames");
    for (int n = 0; n < NODES; n++) {
      Map<String, Long> layers = new HashMap<>();
      for (int i = 0; i < 100; i++) {
        ImageLayers image = catalog.images().get(random.nextInt(catalog.images().size()));
        image.layers().forEach(layer -> layers.put(layer.digest(), layer.size()));
      }
      String name = "ip-10-%d-%d-%d.eu-west-1.compute.internal".formatted(n / 65536, n / 256 % 256, n % 256);
      index.put(new NodeLayerInventory(name, layers, Set.of(), Instant.now()));
      loads.allocatable(name, 8000);
      loads.addRequested(name, random.nextLong(8000), random.nextInt(30));
      names.add(name);
    }
    Map<String, ImageLayers> registry = new HashMap<>();
    catalog.images().forEach(image -> registry.put(image.reference(), image));
    ExtenderVerbs verbs = new ExtenderVerbs(index, loads, registry::get);
    byte[] body = mapper.writeValueAsBytes(request);
    return () -> verbs.prioritize(new ByteArrayInputStream(body), (bytes, offset, length) -> { });
  }
}

package io.crigate.scheduler.extender;

import io.crigate.images.NodeImageLayers;
import io.crigate.images.NodeImageLayersCodec;
import io.crigate.images.NodeLayerInventory;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every node's published {@link NodeImageLayers} decoded in memory, through a fabric8
 * informer (list, then watch), so a scheduling request never waits for the API server.
 */
public final class InventoryInformer implements InventorySource, AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InventoryInformer.class);

  private final Map<String, NodeLayerInventory> byNode = new ConcurrentHashMap<>();
  private final SharedIndexInformer<NodeImageLayers> informer;

  public InventoryInformer(KubernetesClient client) {
    this.informer = client.resources(NodeImageLayers.class).inform(new ResourceEventHandler<>() {
      @Override
      public void onAdd(NodeImageLayers resource) {
        store(resource);
      }

      @Override
      public void onUpdate(NodeImageLayers old, NodeImageLayers resource) {
        store(resource);
      }

      @Override
      public void onDelete(NodeImageLayers resource, boolean finalStateUnknown) {
        byNode.remove(resource.getMetadata().getName());
      }
    });
  }

  @Override
  public Map<String, NodeLayerInventory> inventories() {
    return byNode;
  }

  private void store(NodeImageLayers resource) {
    try {
      NodeLayerInventory inventory = NodeImageLayersCodec.fromResource(resource);
      byNode.put(inventory.node(), inventory);
    } catch (RuntimeException malformed) {
      // one bad object must not stop the others from being scored; the node just scores 0
      byNode.remove(resource.getMetadata().getName());
      LOG.warn("ignoring NodeImageLayers {}: {}", resource.getMetadata().getName(), malformed.getMessage());
    }
  }

  @Override
  public void close() {
    informer.close();
  }
}

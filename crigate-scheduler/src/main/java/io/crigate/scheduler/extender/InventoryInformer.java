package io.crigate.scheduler.extender;

import io.crigate.images.NodeImageLayers;
import io.crigate.images.NodeImageLayersCodec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every node's published {@link NodeImageLayers} decoded in memory, through a fabric8
 * informer (list, then watch), so a scheduling request never waits for the API server.
 */
public final class InventoryInformer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InventoryInformer.class);

  private final LayerIndex index;
  private final SharedIndexInformer<NodeImageLayers> informer;

  /** Starts watching; every published inventory lands in {@code index}. */
  public InventoryInformer(KubernetesClient client, LayerIndex index) {
    this.index = index;
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
        index.remove(resource.getMetadata().getName());
      }
    });
  }

  private void store(NodeImageLayers resource) {
    try {
      index.put(NodeImageLayersCodec.fromResource(resource));
    } catch (RuntimeException malformed) {
      // one bad object must not stop the others from being scored; the node just scores 0
      index.remove(resource.getMetadata().getName());
      LOG.warn("ignoring NodeImageLayers {}: {}", resource.getMetadata().getName(), malformed.getMessage());
    }
  }

  @Override
  public void close() {
    informer.close();
  }
}

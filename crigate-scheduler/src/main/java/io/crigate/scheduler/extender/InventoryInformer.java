package io.crigate.scheduler.extender;

import io.crigate.images.NodeImageLayers;
import io.crigate.images.NodeImageLayersCodec;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps every node's published {@link NodeImageLayers} decoded in memory, through a fabric8
 * informer (list, then watch), so a scheduling request never waits for the API server.
 *
 * <p>Only the {@link LayerIndex} keeps layers. The informer's own store keeps each object's name
 * and resource version, which is what a relist needs to tell what changed; a full object (a digest
 * and a size per layer, hundreds of layers) would be kept twice otherwise, and at 5,000 nodes that
 * is hundreds of MB (docs/benchmarks.md).
 */
public final class InventoryInformer implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(InventoryInformer.class);

  private final LayerIndex index;
  private final SharedIndexInformer<NodeImageLayers> informer;

  /** Lists, then watches; returns once every listed inventory is in {@code index}. */
  public InventoryInformer(KubernetesClient client, LayerIndex index) {
    this.index = index;
    this.informer = InformerHandlers.runApplied(client.resources(NodeImageLayers.class)
        .withLimit(NodeLoadInformer.LIST_PAGE).runnableInformer(0)
        .itemStore(new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE, NodeImageLayers.class,
            client.getKubernetesSerialization())),
        this::store, resource -> index.remove(resource.getMetadata().getName()));
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

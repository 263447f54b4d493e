package io.crigate.images;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonDeletingOperation;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * Writes a node's inventory to the cluster as its {@link NodeImageLayers} object. The object is
 * owned by the Node, so deleting the node garbage-collects it. An inventory equal to the last one
 * written is not written again; a failed write is retried with the next inventory the {@link
 * LayerInventory} hands over (its resync guarantees one).
 */
final class InventoryPublisher implements Consumer<NodeLayerInventory> {

  private static final int HTTP_CONFLICT = 409;
  private static final int HTTP_NOT_FOUND = 404;

  private final KubernetesClient client;
  private final int maxSpecBytes;
  private final RateLimitedLog log;
  private NodeImageLayersSpec lastWritten;
  private String lastVersion;
  private OwnerReference owner;

  public InventoryPublisher(KubernetesClient client) {
    this(client, NodeImageLayersCodec.DEFAULT_MAX_SPEC_BYTES, Clock.systemUTC());
  }

  InventoryPublisher(KubernetesClient client, int maxSpecBytes, Clock clock) {
    this.client = client;
    this.maxSpecBytes = maxSpecBytes;
    this.log = new RateLimitedLog(LoggerFactory.getLogger(InventoryPublisher.class), clock, Duration.ofMinutes(1));
  }

  @Override
  public synchronized void accept(NodeLayerInventory inventory) {
    NodeImageLayers resource = NodeImageLayersCodec.toResource(inventory, maxSpecBytes);
    if (lastWritten != null && sameContent(lastWritten, resource.getSpec())) {
      return;
    }
    try {
      ownBy(resource, inventory.node());
      lastVersion = write(resource).getMetadata().getResourceVersion();
      lastWritten = resource.getSpec();
      if (resource.getSpec().truncated()) {
        log.warn("truncated", "node %s holds %d layers; only the largest %d fit one NodeImageLayers object"
            .formatted(inventory.node(), inventory.layers().size(), resource.getSpec().layers().size()));
      }
    } catch (KubernetesClientException e) {
      log.warn("write", "NodeImageLayers %s not published (HTTP %d): %s"
          .formatted(inventory.node(), e.getCode(), e.getStatus() == null ? e.getClass().getSimpleName() : e.getStatus().getMessage()));
    }
  }

  /**
   * Steady state is one PUT carrying the resourceVersion of our own last write. Only this node
   * writes its object, so a conflict or a missing object means someone else touched it: fall back
   * to create-or-replace.
   */
  private NodeImageLayers write(NodeImageLayers resource) {
    if (lastVersion != null) {
      resource.getMetadata().setResourceVersion(lastVersion);
      try {
        return client.resource(resource).update();
      } catch (KubernetesClientException e) {
        if (e.getCode() != HTTP_CONFLICT && e.getCode() != HTTP_NOT_FOUND) {
          throw e;
        }
        resource.getMetadata().setResourceVersion(null);
      }
    }
    return client.resource(resource).createOr(NonDeletingOperation::update);
  }

  /** Deletes this node's object, e.g. when crigate is removed from the node for good. */
  public synchronized void remove(String node) {
    client.resources(NodeImageLayers.class).withName(node).delete();
    lastWritten = null;
    lastVersion = null;
  }

  /** Until the Node object is seen (crigate may start before the kubelet registers it), the object has no owner. */
  private void ownBy(NodeImageLayers resource, String nodeName) {
    if (owner == null) {
      Node node = client.nodes().withName(nodeName).get();
      if (node != null) {
        owner = new OwnerReferenceBuilder().withApiVersion("v1").withKind("Node")
            .withName(nodeName).withUid(node.getMetadata().getUid()).build();
      }
    }
    if (owner != null) {
      resource.getMetadata().setOwnerReferences(List.of(owner));
    }
  }

  /** The update time alone is no reason to write: it would turn every resync into an API write. */
  private static boolean sameContent(NodeImageLayersSpec a, NodeImageLayersSpec b) {
    return a.layers().equals(b.layers()) && a.pulling().equals(b.pulling()) && a.truncated() == b.truncated();
  }
}

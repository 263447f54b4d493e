package io.crigate.images;

import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.ShortNames;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * The published form of a {@link NodeLayerInventory}: one cluster-scoped object per node, named
 * after the node. Only that node's crigate writes it; schedulers read it. Convert with {@link
 * NodeImageLayersCodec}; the CRD is {@code crigate-images/src/main/resources/crds/nodeimagelayers.crigate.io-v1.yml}.
 */
@Group(NodeImageLayers.GROUP)
@Version("v1alpha1")
@Kind("NodeImageLayers")
@Plural("nodeimagelayers")
@Singular("nodeimagelayers")
@ShortNames("nil")
public class NodeImageLayers extends CustomResource<NodeImageLayersSpec, Void> {

  public static final String GROUP = "crigate.io";

  @Override
  protected NodeImageLayersSpec initSpec() {
    return NodeImageLayersSpec.EMPTY;
  }
}

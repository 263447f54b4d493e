package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.PodLayers;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Tells the layer index which pulls to expect: a pod seen bound and not yet running is pulling its
 * images to its node. The layers are those the extender already knows, since it scored the pod
 * moments before the binding; the informer's thread never waits on a registry, so an image whose
 * layers are not known adds nothing. A running pod adds nothing either (its images are on the node,
 * and the inventory shows them or soon will); the pull it expected while pending stays until then.
 */
public record BoundPodPulls(LayerIndex index, ImageLayerSource images) implements PodBindings {

  @Override
  public void bound(String pod, String node, Pod object) {
    if (object.getStatus() != null && "Running".equals(object.getStatus().getPhase())) {
      return;
    }
    List<ImageLayers> known = new ArrayList<>();
    for (String image : images(object.getSpec())) {
      try {
        images.layersIfKnown(image).ifPresent(known::add);
      } catch (RuntimeException refusedOrUnparsable) {
        // the score left this image out for the same reason (said there, once per registry)
      }
    }
    index.expectPull(pod, node, PodLayers.of(known));
  }

  @Override
  public void unbound(String pod) {
    index.forgetPull(pod);
  }

  private static Set<String> images(PodSpec spec) {
    Set<String> images = new LinkedHashSet<>();
    spec.getInitContainers().stream().map(Container::getImage).forEach(images::add);
    spec.getContainers().stream().map(Container::getImage).forEach(images::add);
    images.remove(null);
    return images;
  }
}

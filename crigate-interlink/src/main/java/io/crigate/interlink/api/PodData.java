package io.crigate.interlink.api;

import io.crigate.interlink.wire.PodCreateRequests;
import io.crigate.interlink.wire.PodReferences;
import io.crigate.interlink.wire.RetrievedContainer;
import io.crigate.interlink.wire.RetrievedPodData;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * What interLink's API server sends a plugin for one VK create: per init container, then per
 * container, the ConfigMaps, Secrets and projected volume files it uses. interLink picks them by
 * volumeMounts; this layer also adds those named by env/envFrom, so a plugin can resolve them.
 */
final class PodData {

  private PodData() {}

  static RetrievedPodData retrieved(PodCreateRequests request) {
    Pod pod = request.pod();
    Map<String, Volume> volumes = pod.getSpec() == null || pod.getSpec().getVolumes() == null ? Map.of()
        : pod.getSpec().getVolumes().stream().collect(Collectors.toMap(Volume::getName, Function.identity(), (a, b) -> a));
    List<RetrievedContainer> containers = new ArrayList<>();
    for (Container container : PodReferences.containers(pod)) {
      PodReferences refs = PodReferences.of(container, volumes);
      containers.add(new RetrievedContainer(container.getName(), named(request.configmaps(), refs.configMaps()),
          named(request.projectedvolumesmaps(), refs.projectedVolumes()), named(request.secrets(), refs.secrets()), null));
    }
    return new RetrievedPodData(pod, containers);
  }

  /** The objects whose names are wanted, in the order sent; null (as Go writes an empty slice) when none. */
  private static <T extends HasMetadata> List<T> named(List<T> sent, Set<String> wanted) {
    if (sent == null || wanted.isEmpty()) {
      return null;
    }
    List<T> picked = sent.stream().filter(o -> o.getMetadata() != null && wanted.contains(o.getMetadata().getName()))
        .toList();
    return picked.isEmpty() ? null : picked;
  }
}

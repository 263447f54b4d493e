package io.crigate.interlink.wire;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ConfigMaps, Secrets and projected volumes a pod or one container uses: through its volumes
 * (mounted, for a container) and through env/envFrom. What the virtual node fetches for a create,
 * and what the API layer hands each container's entry of a plugin's /create.
 */
public record PodReferences(Set<String> configMaps, Set<String> secrets, Set<String> projectedVolumes) {

  private static PodReferences empty() {
    return new PodReferences(new LinkedHashSet<>(), new LinkedHashSet<>(), new LinkedHashSet<>());
  }

  /** Every volume of the pod and every container's env. */
  public static PodReferences of(Pod pod) {
    PodReferences refs = empty();
    if (pod.getSpec() == null) {
      return refs;
    }
    nullSafe(pod.getSpec().getVolumes()).forEach(refs::add);
    containers(pod).forEach(refs::addEnv);
    return refs;
  }

  /** What one container mounts (of {@code volumes}, by name) and names in its env. */
  public static PodReferences of(Container container, Map<String, Volume> volumes) {
    PodReferences refs = empty();
    for (VolumeMount mount : nullSafe(container.getVolumeMounts())) {
      Volume volume = volumes.get(mount.getName());
      if (volume != null) {
        refs.add(volume);
      }
    }
    refs.addEnv(container);
    return refs;
  }

  /** Init containers first, then containers, in spec order. */
  public static List<Container> containers(Pod pod) {
    List<Container> all = new ArrayList<>();
    if (pod.getSpec() != null) {
      all.addAll(nullSafe(pod.getSpec().getInitContainers()));
      all.addAll(nullSafe(pod.getSpec().getContainers()));
    }
    return all;
  }

  private void add(Volume volume) {
    if (volume.getConfigMap() != null) {
      configMaps.add(volume.getConfigMap().getName());
    } else if (volume.getSecret() != null) {
      secrets.add(volume.getSecret().getSecretName());
    } else if (volume.getProjected() != null || volume.getDownwardAPI() != null) {
      projectedVolumes.add(volume.getName());
    }
  }

  private void addEnv(Container container) {
    for (EnvFromSource from : nullSafe(container.getEnvFrom())) {
      if (from.getConfigMapRef() != null) {
        configMaps.add(from.getConfigMapRef().getName());
      }
      if (from.getSecretRef() != null) {
        secrets.add(from.getSecretRef().getName());
      }
    }
    for (EnvVar env : nullSafe(container.getEnv())) {
      if (env.getValueFrom() != null && env.getValueFrom().getConfigMapKeyRef() != null) {
        configMaps.add(env.getValueFrom().getConfigMapKeyRef().getName());
      }
      if (env.getValueFrom() != null && env.getValueFrom().getSecretKeyRef() != null) {
        secrets.add(env.getValueFrom().getSecretKeyRef().getName());
      }
    }
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }
}

package io.crigate.interlink.node;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A pod's projected volumes as interLink hands them to a plugin: one ConfigMap per volume, named
 * after it, one entry per file. ConfigMap and Secret sources are read from the API server, the
 * namespace/name/uid downward files from the pod. Service account tokens are not issued (the
 * node asks no TokenRequest), so a projected kube-api-access volume holds ca.crt and namespace.
 */
final class ProjectedFiles {

  private ProjectedFiles() {}

  static List<ConfigMap> of(Pod pod, KubernetesClient kube) {
    List<ConfigMap> maps = new ArrayList<>();
    List<Volume> volumes = pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    for (Volume volume : volumes) {
      if (volume.getProjected() == null) {
        continue;
      }
      Map<String, String> files = new LinkedHashMap<>();
      List<VolumeProjection> sources = volume.getProjected().getSources() == null ? List.of() : volume.getProjected().getSources();
      for (VolumeProjection source : sources) {
        if (source.getConfigMap() != null) {
          ConfigMap map = kube.configMaps().inNamespace(pod.getMetadata().getNamespace())
              .withName(source.getConfigMap().getName()).get();
          if (map != null && map.getData() != null) {
            put(files, map.getData(), source.getConfigMap().getItems());
          }
        }
        if (source.getSecret() != null) {
          Secret secret = kube.secrets().inNamespace(pod.getMetadata().getNamespace())
              .withName(source.getSecret().getName()).get();
          if (secret != null && secret.getData() != null) {
            Map<String, String> decoded = new LinkedHashMap<>();
            secret.getData().forEach((k, v) -> decoded.put(k, new String(Base64.getDecoder().decode(v), StandardCharsets.UTF_8)));
            put(files, decoded, source.getSecret().getItems());
          }
        }
        if (source.getDownwardAPI() != null && source.getDownwardAPI().getItems() != null) {
          source.getDownwardAPI().getItems().stream().filter(item -> item.getFieldRef() != null).forEach(item -> {
            String value = switch (item.getFieldRef().getFieldPath()) {
              case "metadata.namespace" -> pod.getMetadata().getNamespace();
              case "metadata.name" -> pod.getMetadata().getName();
              case "metadata.uid" -> pod.getMetadata().getUid();
              default -> null;
            };
            if (value != null) {
              files.put(item.getPath(), value);
            }
          });
        }
      }
      maps.add(new ConfigMapBuilder().withNewMetadata().withName(volume.getName()).endMetadata().withData(files).build());
    }
    return maps;
  }

  private static void put(Map<String, String> files, Map<String, String> data, List<KeyToPath> items) {
    if (items == null || items.isEmpty()) {
      files.putAll(data);
      return;
    }
    for (KeyToPath item : items) {
      if (data.containsKey(item.getKey())) {
        files.put(item.getPath(), data.get(item.getKey()));
      }
    }
  }
}

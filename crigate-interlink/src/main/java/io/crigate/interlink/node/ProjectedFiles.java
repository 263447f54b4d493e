package io.crigate.interlink.node;

import io.crigate.interlink.wire.DownwardApi;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.DownwardAPIVolumeFile;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeBuilder;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import io.fabric8.kubernetes.api.model.VolumeProjectionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod's projected and downwardAPI volumes as interLink hands them to a plugin: one ConfigMap per
 * volume, named after it, one entry per file (keyed by its path). Service account tokens come from
 * the TokenRequest API, ConfigMap and Secret sources from the API server (with {@code items} and
 * {@code optional}), downward API files from the pod. File modes stay in the pod spec, where the
 * plugin reads them. A file that is not UTF-8 text (a binary Secret key, a ConfigMap's
 * {@code binaryData}) goes in the ConfigMap's {@code binaryData}, byte for byte: as {@code data} text
 * it would arrive altered.
 */
final class ProjectedFiles {

  private static final Logger LOG = LoggerFactory.getLogger(ProjectedFiles.class);

  private final KubernetesClient kube;
  private final ServiceAccountTokens tokens;
  private final Supplier<Map<String, Quantity>> allocatable;
  private final PodApiAccess podApi;

  /**
   * @param allocatable the node's allocatable resources, read only when a resourceFieldRef needs them
   * @param podApi what stands in for the cluster's {@code kube-root-ca.crt}, if anything
   */
  ProjectedFiles(KubernetesClient kube, ServiceAccountTokens tokens, Supplier<Map<String, Quantity>> allocatable,
      PodApiAccess podApi) {
    this.kube = kube;
    this.tokens = tokens;
    this.allocatable = allocatable;
    this.podApi = podApi;
  }

  /**
   * The files of every projected and downwardAPI volume of the pod, and when the earliest token in
   * them is to be sent again (null: none is).
   *
   * @param refreshable whether the plugin takes the files again (else tokens are issued as interLink does)
   */
  Projected of(Pod pod, boolean refreshable) {
    List<ConfigMap> maps = new ArrayList<>();
    Instant refreshAt = null;
    for (Volume volume : nullSafe(pod.getSpec().getVolumes())) {
      List<VolumeProjection> sources;
      if (volume.getProjected() != null) {
        sources = nullSafe(volume.getProjected().getSources());
      } else if (volume.getDownwardAPI() != null) {
        sources = List.of(downwardSource(volume));
      } else {
        continue;
      }
      Map<String, byte[]> files = new LinkedHashMap<>();
      for (VolumeProjection source : sources) {
        String where = "volume %s".formatted(volume.getName());
        if (source.getServiceAccountToken() != null) {
          ServiceAccountTokens.Issued token = tokens.issue(pod, source.getServiceAccountToken(), refreshable);
          files.put(source.getServiceAccountToken().getPath(), utf8(token.value()));
          if (refreshable && (refreshAt == null || token.refreshAt().isBefore(refreshAt))) {
            refreshAt = token.refreshAt();
          }
        } else if (source.getConfigMap() != null) {
          var ref = source.getConfigMap();
          addSource(files, "ConfigMap " + ref.getName(), Boolean.TRUE.equals(ref.getOptional()), ref.getItems(), where,
              podApi.replacing(ref.getName()).map(ProjectedFiles::utf8).orElseGet(() -> configMapData(pod, ref.getName())));
        } else if (source.getSecret() != null) {
          var ref = source.getSecret();
          addSource(files, "Secret " + ref.getName(), Boolean.TRUE.equals(ref.getOptional()), ref.getItems(), where,
              secretData(pod, ref.getName()));
        } else if (source.getDownwardAPI() != null) {
          for (DownwardAPIVolumeFile item : nullSafe(source.getDownwardAPI().getItems())) {
            files.put(item.getPath(), utf8(downward(pod, item, where)));
          }
        } else {
          LOG.warn("pod {}/{} {}: a projected source this node cannot provide is left out",
              pod.getMetadata().getNamespace(), pod.getMetadata().getName(), where);
        }
      }
      maps.add(asConfigMap(volume.getName(), files));
    }
    return new Projected(maps, refreshAt);
  }

  /**
   * The pod as it is sent: each downwardAPI volume becomes a projected volume with one downwardAPI
   * source (same items and modes), as interLink's virtual kubelet sends it, because interLink's API
   * server and Slurm plugin hand a plugin the files of projected volumes only.
   */
  static Pod withDownwardVolumesProjected(Pod pod) {
    if (nullSafe(pod.getSpec().getVolumes()).stream().noneMatch(v -> v.getDownwardAPI() != null)) {
      return pod;
    }
    Pod copy = new PodBuilder(pod).build();
    copy.getSpec().setVolumes(copy.getSpec().getVolumes().stream().map(v -> v.getDownwardAPI() == null ? v
        : new VolumeBuilder().withName(v.getName()).withNewProjected().withDefaultMode(v.getDownwardAPI().getDefaultMode())
            .withSources(downwardSource(v)).endProjected().build()).toList());
    return copy;
  }

  private static VolumeProjection downwardSource(Volume volume) {
    return new VolumeProjectionBuilder().withNewDownwardAPI().withItems(volume.getDownwardAPI().getItems())
        .endDownwardAPI().build();
  }

  private String downward(Pod pod, DownwardAPIVolumeFile item, String where) {
    try {
      if (item.getFieldRef() != null) {
        return DownwardApi.field(pod, item.getFieldRef().getFieldPath());
      }
      if (item.getResourceFieldRef() != null) {
        return DownwardApi.resource(pod, "", item.getResourceFieldRef(), allocatable.get());
      }
    } catch (IllegalArgumentException e) {
      throw new IllegalStateException("%s, file %s: %s".formatted(where, item.getPath(), e.getMessage()));
    }
    throw new IllegalStateException("%s, file %s: neither fieldRef nor resourceFieldRef".formatted(where, item.getPath()));
  }

  private static void missing(boolean optional, String reason) {
    if (!optional) {
      throw new IllegalStateException(reason);
    }
  }

  /** The files of a ConfigMap ({@code data} and {@code binaryData}), or null when there is none. */
  private Map<String, byte[]> configMapData(Pod pod, String name) {
    ConfigMap map = kube.configMaps().inNamespace(pod.getMetadata().getNamespace()).withName(name).get();
    if (map == null) {
      return null;
    }
    Map<String, byte[]> files = new LinkedHashMap<>();
    nullSafe(map.getData()).forEach((k, v) -> files.put(k, utf8(v)));
    nullSafe(map.getBinaryData()).forEach((k, v) -> files.put(k, Base64.getDecoder().decode(v)));
    return files;
  }

  /** The decoded files of a Secret, or null when there is none. */
  private Map<String, byte[]> secretData(Pod pod, String name) {
    Secret secret = kube.secrets().inNamespace(pod.getMetadata().getNamespace()).withName(name).get();
    if (secret == null) {
      return null;
    }
    Map<String, byte[]> decoded = new LinkedHashMap<>();
    nullSafe(secret.getData()).forEach((k, v) -> decoded.put(k, Base64.getDecoder().decode(v)));
    nullSafe(secret.getStringData()).forEach((k, v) -> decoded.put(k, utf8(v)));
    return decoded;
  }

  /** One volume's files as the wire carries them: UTF-8 text in {@code data}, anything else in {@code binaryData}. */
  private static ConfigMap asConfigMap(String volume, Map<String, byte[]> files) {
    Map<String, String> text = new LinkedHashMap<>();
    Map<String, String> binary = new LinkedHashMap<>();
    files.forEach((path, bytes) -> {
      String decoded = text(bytes);
      if (decoded != null) {
        text.put(path, decoded);
      } else {
        binary.put(path, Base64.getEncoder().encodeToString(bytes));
      }
    });
    ConfigMapBuilder map = new ConfigMapBuilder().withNewMetadata().withName(volume).endMetadata().withData(text);
    return (binary.isEmpty() ? map : map.withBinaryData(binary)).build();
  }

  /** The bytes as UTF-8 text, or null when they are not valid UTF-8. */
  private static String text(byte[] bytes) {
    try {
      return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
          .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
    } catch (CharacterCodingException e) {
      return null;
    }
  }

  private static byte[] utf8(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private static Map<String, byte[]> utf8(Map<String, String> text) {
    Map<String, byte[]> files = new LinkedHashMap<>();
    text.forEach((k, v) -> files.put(k, utf8(v)));
    return files;
  }

  /** A ConfigMap's or Secret's files (all keys, or its items); {@code data} null: the object is missing. */
  private static void addSource(Map<String, byte[]> files, String what, boolean optional, List<KeyToPath> items,
      String where, Map<String, byte[]> data) {
    if (data == null) {
      missing(optional, "%s: %s not found".formatted(where, what));
      return;
    }
    if (items == null || items.isEmpty()) {
      files.putAll(data);
      return;
    }
    for (KeyToPath item : items) {
      if (data.containsKey(item.getKey())) {
        files.put(item.getPath(), data.get(item.getKey()));
      } else {
        missing(optional, "%s: key %s of %s not found".formatted(where, item.getKey(), what));
      }
    }
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static <K, V> Map<K, V> nullSafe(Map<K, V> map) {
    return map == null ? Map.of() : map;
  }

  /** The volumes' files, and when the earliest token among them must be sent again (null: never). */
  record Projected(List<ConfigMap> maps, Instant refreshAt) {

    @Override
    public String toString() {
      return "Projected[" + maps.size() + " volumes, refreshAt=" + refreshAt + "]";
    }
  }
}

package io.crigate.interlink.plugin;

import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.RetrievedContainer;
import io.crigate.spi.UntrustedTree;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.KeyToPath;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeProjection;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Materialises a pod's ConfigMap, Secret, projected and emptyDir volumes as files under
 * {@code <root>/<pod uid>/<volume>/}, a directory the backend then bind-mounts into the containers.
 * For Slurm the root must be on the file system the compute nodes share.
 */
final class VolumeFiles {

  private static final Logger LOG = LoggerFactory.getLogger(VolumeFiles.class);

  private final Path root;
  /** Who the backend's containers run as, where not crigate's user; null leaves files crigate's. */
  private final UserPrincipal owner;

  /**
   * @param workloadUser the user the backend's containers run as ({@code Backend.workloadUser()}):
   *     each volume directory and file is handed to it, so a job of a cluster account can write its
   *     emptyDir and read its 0600 Secret
   */
  VolumeFiles(Path root, Optional<String> workloadUser) {
    this.root = root;
    this.owner = workloadUser.map(VolumeFiles::principal).orElse(null);
  }

  private static UserPrincipal principal(String user) {
    try {
      return FileSystems.getDefault().getUserPrincipalLookupService().lookupPrincipalByName(user);
    } catch (IOException e) {
      LOG.warn("the backend's containers run as {}, a user unknown on this node: pod volumes stay crigate's user's,"
          + " and a Secret (0600 unless its defaultMode says otherwise) cannot be read by the pod", user);
      return null;
    }
  }

  /** Hands {@code path} to the containers' user, before a container can see it. */
  private void handOver(Path path) throws IOException {
    if (owner != null) {
      Files.setOwner(path, owner);
    }
  }

  Path podDir(String uid) {
    return root.resolve(uid);
  }

  /** Writes every volume; returns volume name -> host directory (or hostPath). Nothing is left on failure. */
  Map<String, Path> materialise(Pod pod, List<RetrievedContainer> data) {
    String uid = pod.getMetadata().getUid();
    Map<String, Path> dirs = new LinkedHashMap<>();
    List<Volume> volumes = pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    try {
      for (int i = 0; i < volumes.size(); i++) {
        Volume volume = volumes.get(i);
        String field = "pod.spec.volumes[%d]".formatted(i);
        if (volume.getName() == null || volume.getName().isBlank() || volume.getName().contains("/")
            || volume.getName().startsWith(".")) {
          throw new BadRequest(field + ".name", "'%s' is not a volume name".formatted(volume.getName()));
        }
        if (volume.getHostPath() != null) {
          dirs.put(volume.getName(), Path.of(volume.getHostPath().getPath()));
          continue;
        }
        Path dir = podDir(uid).resolve(volume.getName());
        Files.createDirectories(dir);
        handOver(dir);
        write(volume, field, dir, data);
        dirs.put(volume.getName(), dir);
      }
      return dirs;
    } catch (IOException e) {
      remove(uid);
      throw new UncheckedIOException("cannot write the volumes of pod " + uid, e);
    } catch (RuntimeException e) {
      remove(uid);
      throw e;
    }
  }

  void remove(String uid) {
    deleteTree(podDir(uid));
  }

  /** The containers' user owns the volumes and can put links in them: the removal never follows one. */
  static void deleteTree(Path dir) {
    try {
      UntrustedTree.remove(dir);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot remove " + dir, e);
    }
  }

  private void write(Volume volume, String field, Path dir, List<RetrievedContainer> data) throws IOException {
    if (volume.getEmptyDir() != null) {
      return;
    }
    if (volume.getConfigMap() != null) {
      String name = volume.getConfigMap().getName();
      ConfigMap map = find(data.stream().flatMap(c -> nullSafe(c.configMaps()).stream()), name);
      if (map == null) {
        missing(Boolean.TRUE.equals(volume.getConfigMap().getOptional()), field + ".configMap.name",
            "ConfigMap '%s' was not sent with the pod".formatted(name));
        return;
      }
      Map<String, byte[]> files = new LinkedHashMap<>();
      nullSafe(map.getData()).forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
      nullSafe(map.getBinaryData()).forEach((k, v) -> files.put(k, decode(v, field, k)));
      writeFiles(dir, select(files, volume.getConfigMap().getItems(), field), volume.getConfigMap().getDefaultMode());
      return;
    }
    if (volume.getSecret() != null) {
      String name = volume.getSecret().getSecretName();
      Secret secret = data.stream().flatMap(c -> nullSafe(c.secrets()).stream())
          .filter(s -> s.getMetadata() != null && Objects.equals(s.getMetadata().getName(), name)).findFirst().orElse(null);
      if (secret == null) {
        missing(Boolean.TRUE.equals(volume.getSecret().getOptional()), field + ".secret.secretName",
            "Secret '%s' was not sent with the pod".formatted(name));
        return;
      }
      Map<String, byte[]> files = new LinkedHashMap<>();
      nullSafe(secret.getData()).forEach((k, v) -> files.put(k, decode(v, field, k)));
      nullSafe(secret.getStringData()).forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
      Integer mode = volume.getSecret().getDefaultMode() == null ? 0600 : volume.getSecret().getDefaultMode();
      writeFiles(dir, select(files, volume.getSecret().getItems(), field), mode);
      return;
    }
    if (volume.getProjected() != null || volume.getDownwardAPI() != null) {
      writeProjected(volume, field, dir, data);
      return;
    }
    throw new BadRequest(field, "volume '%s' has a type this plugin cannot provide (supported: configMap, secret, "
        + "projected, downwardAPI, emptyDir, hostPath)".formatted(volume.getName()));
  }

  /**
   * Rewrites the files of a created pod's projected and downwardAPI volumes (fresh service account
   * tokens, changed labels): each file is replaced whole by a rename, so a job never reads half a token.
   */
  void refresh(Pod pod, List<RetrievedContainer> data) {
    List<Volume> volumes = pod.getSpec().getVolumes() == null ? List.of() : pod.getSpec().getVolumes();
    for (int i = 0; i < volumes.size(); i++) {
      Volume volume = volumes.get(i);
      if (volume.getProjected() == null && volume.getDownwardAPI() == null) {
        continue;
      }
      Path dir = podDir(pod.getMetadata().getUid()).resolve(volume.getName());
      if (!Files.isDirectory(dir)) {
        throw new BadRequest("pod.spec.volumes[%d]".formatted(i), "volume '%s' was not created with the pod".formatted(volume.getName()));
      }
      try {
        writeProjected(volume, "pod.spec.volumes[%d]".formatted(i), dir, data);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot rewrite volume " + volume.getName() + " of pod " + pod.getMetadata().getUid(), e);
      }
    }
  }

  /**
   * interLink resolves projected sources itself and sends the files, named after the volume; the
   * modes are the pod spec's: an item's {@code mode}, else the volume's {@code defaultMode}, else 0644.
   */
  private void writeProjected(Volume volume, String field, Path dir, List<RetrievedContainer> data) throws IOException {
    ConfigMap map = find(data.stream().flatMap(c -> nullSafe(c.projectedvolumemaps()).stream()), volume.getName());
    if (map == null) {
      throw new BadRequest(field, "projected volume '%s' was not sent with the pod (projectedvolumemaps)"
          .formatted(volume.getName()));
    }
    Map<String, byte[]> files = new LinkedHashMap<>();
    nullSafe(map.getData()).forEach((k, v) -> files.put(k, v.getBytes(StandardCharsets.UTF_8)));
    nullSafe(map.getBinaryData()).forEach((k, v) -> files.put(k, decode(v, field, k)));
    Integer defaultMode = volume.getProjected() != null ? volume.getProjected().getDefaultMode()
        : volume.getDownwardAPI().getDefaultMode();
    Map<String, Integer> modes = itemModes(volume);
    for (var file : files.entrySet()) {
      writeFiles(dir, Map.of(file.getKey(), file.getValue()), modes.getOrDefault(file.getKey(), defaultMode));
    }
  }

  /** The {@code mode} of each item that sets one, by the path it is written to. */
  private static Map<String, Integer> itemModes(Volume volume) {
    Map<String, Integer> modes = new LinkedHashMap<>();
    if (volume.getDownwardAPI() != null) {
      nullSafe(volume.getDownwardAPI().getItems()).stream().filter(i -> i.getMode() != null)
          .forEach(i -> modes.put(i.getPath(), i.getMode()));
      return modes;
    }
    for (VolumeProjection source : nullSafe(volume.getProjected().getSources())) {
      if (source.getConfigMap() != null) {
        nullSafe(source.getConfigMap().getItems()).stream().filter(i -> i.getMode() != null)
            .forEach(i -> modes.put(i.getPath(), i.getMode()));
      }
      if (source.getSecret() != null) {
        nullSafe(source.getSecret().getItems()).stream().filter(i -> i.getMode() != null)
            .forEach(i -> modes.put(i.getPath(), i.getMode()));
      }
      if (source.getDownwardAPI() != null) {
        nullSafe(source.getDownwardAPI().getItems()).stream().filter(i -> i.getMode() != null)
            .forEach(i -> modes.put(i.getPath(), i.getMode()));
      }
    }
    return modes;
  }

  private static ConfigMap find(Stream<ConfigMap> maps, String name) {
    return maps.filter(m -> m.getMetadata() != null && Objects.equals(m.getMetadata().getName(), name))
        .findFirst().orElse(null);
  }

  private static void missing(boolean optional, String field, String reason) {
    if (!optional) {
      throw new BadRequest(field, reason);
    }
  }

  private static byte[] decode(String base64, String field, String key) {
    try {
      return Base64.getDecoder().decode(base64);
    } catch (IllegalArgumentException e) {
      throw new BadRequest(field, "value of key '%s' is not base64".formatted(key));
    }
  }

  private static Map<String, byte[]> select(Map<String, byte[]> files, List<KeyToPath> items, String field) {
    if (items == null || items.isEmpty()) {
      return files;
    }
    Map<String, byte[]> selected = new LinkedHashMap<>();
    for (KeyToPath item : items) {
      byte[] content = files.get(item.getKey());
      if (content == null) {
        throw new BadRequest(field + ".items", "key '%s' is not in the source".formatted(item.getKey()));
      }
      selected.put(item.getPath(), content);
    }
    return selected;
  }

  private void writeFiles(Path dir, Map<String, byte[]> files, Integer mode) throws IOException {
    for (var file : files.entrySet()) {
      Path target = dir.resolve(file.getKey()).normalize();
      if (!target.startsWith(dir) || target.equals(dir)) {
        throw new BadRequest("path", "'%s' leaves the volume directory".formatted(file.getKey()));
      }
      Files.createDirectories(target.getParent());
      for (Path at = target.getParent(); !at.equals(dir); at = at.getParent()) {
        handOver(at); // an item's own subdirectories ("conf/app.yaml")
      }
      // written beside and renamed over: a reader sees the old file or the new one, never a part
      Path next = Files.createTempFile(target.getParent(), ".next-", "");
      try {
        Files.write(next, file.getValue());
        Files.setPosixFilePermissions(next, PosixFilePermissions.fromString(permissions(mode == null ? 0644 : mode)));
        handOver(next);
        Files.move(next, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } finally {
        Files.deleteIfExists(next);
      }
    }
  }

  private static String permissions(int mode) {
    String letters = "rwxrwxrwx";
    StringBuilder out = new StringBuilder(9);
    for (int bit = 0; bit < 9; bit++) {
      out.append((mode & (1 << (8 - bit))) != 0 ? letters.charAt(bit) : '-');
    }
    return out.toString();
  }

  private static <T> List<T> nullSafe(List<T> list) {
    return list == null ? List.of() : list;
  }

  private static <K, V> Map<K, V> nullSafe(Map<K, V> map) {
    return map == null ? Map.of() : map;
  }
}

package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonAlias;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Secret;
import java.util.List;

/**
 * What one container's mounts reference. Projected volumes arrive ConfigMap-shaped, named after the
 * volume, with one entry per projected file. {@code emptyDirs} is always null from interLink 0.5+.
 */
public record RetrievedContainer(
    String name,
    List<ConfigMap> configMaps,
    @JsonAlias({"projectedVolumeMaps", "projectedvolumesmaps"}) List<ConfigMap> projectedvolumemaps,
    List<Secret> secrets,
    List<String> emptyDirs) {

  public static RetrievedContainer named(String name) {
    return new RetrievedContainer(name, List.of(), List.of(), List.of(), null);
  }
}

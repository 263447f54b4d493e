package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.util.List;
import java.util.Map;

/**
 * The answer to a ping ({@code GET /status} with {@code []}): health, resources and node taints.
 * {@code crigateVolumeRefresh} is crigate's own key (Go's decoder ignores it): the plugin takes a
 * created pod's projected volumes again through a /create marked as a refresh, so the virtual node
 * may issue tokens with their real lifetime and re-send them before they expire.
 */
public record PingResponse(String status, Resources resources, List<Taint> taints,
    @JsonProperty("crigateVolumeRefresh") Boolean volumeRefresh) {

  public PingResponse(String status, Resources resources, List<Taint> taints) {
    this(status, resources, taints, null);
  }

  public record Resources(String cpu, String memory, String pods, List<Accelerator> accelerators) {}

  public record Accelerator(String resourceType, String available) {}

  public record Taint(String key, String value, String effect) {}

  public static PingResponse ok(Resources resources, List<Taint> taints) {
    return new PingResponse("ok", resources, taints);
  }

  /** A plugin's ping body: a PingResponse, or any text, which then is the status. */
  public static PingResponse parse(String body) {
    try {
      var node = WireJson.mapper().readTree(body);
      if (node != null && node.isObject()) {
        return WireJson.mapper().treeToValue(node, PingResponse.class);
      }
    } catch (java.io.IOException notJson) {
      // the body is the status
    }
    return new PingResponse(body.strip(), null, null);
  }

  public PingResponse withVolumeRefresh() {
    return new PingResponse(status, resources, taints, true);
  }

  public boolean refreshesVolumes() {
    return Boolean.TRUE.equals(volumeRefresh);
  }

  public Map<String, String> capacity() {
    return resources == null ? Map.of()
        : Map.of("cpu", resources.cpu(), "memory", resources.memory(), "pods", resources.pods());
  }
}

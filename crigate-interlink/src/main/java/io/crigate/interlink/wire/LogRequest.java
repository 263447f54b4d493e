package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonProperty;

/** The body of {@code /getLogs} (Go's {@code LogStruct}). */
public record LogRequest(
    @JsonProperty("Namespace") String namespace,
    @JsonProperty("PodUID") String podUid,
    @JsonProperty("PodName") String podName,
    @JsonProperty("ContainerName") String containerName,
    @JsonProperty("Opts") LogOptions opts) {

  public LogOptions optsOrDefault() {
    return opts == null ? LogOptions.NONE : opts;
  }

  /** Fails with the first missing field's wire name. */
  public LogRequest validated() {
    require(podUid, "PodUID");
    require(containerName, "ContainerName");
    optsOrDefault().validated();
    return this;
  }

  private static void require(String value, String field) {
    if (value == null || value.isBlank()) {
      throw new BadRequest(field, "is required");
    }
  }
}

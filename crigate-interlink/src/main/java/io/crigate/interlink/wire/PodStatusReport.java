package io.crigate.interlink.wire;

import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import java.util.List;

/** One element of the {@code /status} answer (Go's {@code PodStatus}). */
public record PodStatusReport(
    @JsonProperty("name") String name,
    @JsonProperty("UID") String uid,
    @JsonProperty("namespace") String namespace,
    @JsonProperty("JID") String jid,
    @JsonProperty("containers") List<ContainerStatus> containers,
    @JsonProperty("initContainers") List<ContainerStatus> initContainers) {}

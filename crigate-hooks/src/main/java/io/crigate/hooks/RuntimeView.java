package io.crigate.hooks;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.MissingNode;
import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerState;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.ContainerStatusResponse;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.LinuxContainerConfig;
import io.crigate.api.cri.v1.LinuxPodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxMetadata;
import io.crigate.api.cri.v1.PodSandboxStatusRequest;
import io.crigate.api.cri.v1.PodSandboxStatusResponse;
import io.crigate.spi.RuntimeBackend;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.cri.CriTranslation;

/**
 * A running container and its pod as the standalone reconciler learns them from the runtime after
 * the fact: the CRI status calls, verbose, for what plain status lacks (the env, the process id,
 * the pod's cgroup parent). The result goes through the engine's own CRI translation, so the
 * contexts match what the proxy door builds from the original requests.
 *
 * @param pid the container's init process on the host; 0 when the runtime did not say
 * @param startedAtNanos when the container started (or was created, if not yet started)
 * @param running whether it has started and not exited
 */
record RuntimeView(PodContext pod, ContainerContext container, long pid, long startedAtNanos, boolean running) {

  private static final ObjectMapper JSON = new ObjectMapper();

  static RuntimeView read(RuntimeBackend runtime, String containerId) {
    ContainerStatusResponse c = runtime.containerStatus(
        ContainerStatusRequest.newBuilder().setContainerId(containerId).setVerbose(true).build());
    JsonNode cInfo = info(c.getInfoMap().get("info"));
    String sandboxId = cInfo.path("sandboxID").asText("");
    PodSandboxStatusResponse p = runtime.podSandboxStatus(
        PodSandboxStatusRequest.newBuilder().setPodSandboxId(sandboxId).setVerbose(true).build());
    JsonNode pInfo = info(p.getInfoMap().get("info"));
    PodSandboxConfig podConfig = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(p.getStatus().getMetadata().getName())
            .setNamespace(p.getStatus().getMetadata().getNamespace()).setUid(p.getStatus().getMetadata().getUid())
            .setAttempt(p.getStatus().getMetadata().getAttempt()))
        .putAllLabels(p.getStatus().getLabelsMap()).putAllAnnotations(p.getStatus().getAnnotationsMap())
        .setLinux(LinuxPodSandboxConfig.newBuilder()
            .setCgroupParent(pInfo.path("config").path("linux").path("cgroup_parent").asText("")))
        .build();
    PodContext pod = CriTranslation.pod(sandboxId, podConfig, p.getStatus().getRuntimeHandler());
    ContainerConfig.Builder config = ContainerConfig.newBuilder()
        .setMetadata(c.getStatus().getMetadata())
        .putAllLabels(c.getStatus().getLabelsMap()).putAllAnnotations(c.getStatus().getAnnotationsMap())
        .setLinux(LinuxContainerConfig.newBuilder().setResources(c.getStatus().getResources().getLinux()));
    for (JsonNode kv : cInfo.path("runtimeSpec").path("process").path("env")) {
      String[] pair = kv.asText().split("=", 2);
      config.addEnvs(KeyValue.newBuilder().setKey(pair[0]).setValue(ByteString.copyFromUtf8(pair.length > 1 ? pair[1] : "")));
    }
    ContainerContext container = CriTranslation.container(pod, containerId, config.build());
    long started = c.getStatus().getStartedAt() != 0 ? c.getStatus().getStartedAt() : c.getStatus().getCreatedAt();
    return new RuntimeView(pod, container, cInfo.path("pid").asLong(0), started,
        c.getStatus().getState() == ContainerState.CONTAINER_RUNNING);
  }

  /** containerd puts its verbose details in one JSON string; other runtimes may leave it out. */
  private static JsonNode info(String json) {
    if (json == null || json.isBlank()) {
      return MissingNode.getInstance();
    }
    try {
      return JSON.readTree(json);
    } catch (JsonProcessingException e) {
      return MissingNode.getInstance();
    }
  }
}

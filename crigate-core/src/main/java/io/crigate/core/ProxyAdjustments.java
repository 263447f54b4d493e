package io.crigate.core;

import com.google.protobuf.InvalidProtocolBufferException;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerStatusRequest;
import io.crigate.api.cri.v1.ContainerStatusResponse;
import io.crigate.api.cri.v1.CreateContainerRequest;
import io.crigate.api.cri.v1.LinuxContainerResources;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import io.crigate.api.cri.v1.UpdateContainerResourcesRequest;
import io.crigate.api.cri.v1.UpdatePodSandboxResourcesRequest;
import io.crigate.core.state.GatewayState;
import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.cri.CriTranslation;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CRI proxy door of the adjustment engine: turns CRI requests into contexts, asks the
 * {@link PluginChain}, applies the answer to the request before it is forwarded and delivers updates
 * of other containers as UpdateContainerResources through their owners.
 *
 * <p>Every sandbox and container it has seen is kept durably (its request, with the resources the
 * container runs with), so that after a restart or {@code kill -9} the plugins are synchronized with
 * what is really running instead of starting from nothing.
 */
final class ProxyAdjustments {

  private static final Logger log = LoggerFactory.getLogger(ProxyAdjustments.class);
  /** A durable namespace no backend name can take (backend names start with a letter or digit). */
  static final String NAMESPACE = "@adjustments";
  private static final String SANDBOX = "sandbox/";
  private static final String CONTAINER = "container/";

  private final GatewayState state;
  private final DurableStore store;
  private final Owners owners;
  private final Map<String, RunPodSandboxRequest> sandboxes = new ConcurrentHashMap<>();
  /**
   * Each sandbox's context, built on first use and dropped when its record changes: building one
   * parses the webhook's resource annotation, which every container event of the pod would
   * otherwise do again.
   */
  private final Map<String, PodContext> podContexts = new ConcurrentHashMap<>();
  /** By container id: pod_sandbox_id and the config with the resources the container runs with. */
  private final Map<String, CreateContainerRequest> containers = new ConcurrentHashMap<>();
  private volatile PluginChain chain = PluginChain.empty();

  ProxyAdjustments(GatewayState state, Owners owners) {
    this.state = state;
    this.store = state.backendStore(NAMESPACE);
    this.owners = owners;
  }

  /** A container whose CreateContainer is on its way to the backend. */
  record Pending(CreateContainerRequest request, PodContext pod, ContainerContext container) {}

  /**
   * Installs the plugins: loads what was recorded, drops what the backends no longer have, takes the
   * resources the rest really run with, and synchronizes the chain with them.
   */
  void start(PluginChain plugins) {
    chain = plugins;
    load();
    if (plugins.isEmpty()) {
      return;
    }
    List<PodContext> pods = new ArrayList<>();
    sandboxes.keySet().forEach(id -> podOf(id).ifPresent(pods::add));
    List<ContainerContext> running = new ArrayList<>();
    for (String id : List.copyOf(containers.keySet())) {
      running.addAll(checkRunning(id).stream().toList());
    }
    apply(chain.synchronize(pods, running));
    log.info("adjustment plugins {} synchronized with {} pods and {} containers",
        plugins.plugins().stream().map(p -> p.name()).toList(), pods.size(), running.size());
  }

  /** Where plugins send updates decided outside an event. */
  List<ContainerUpdate> update(List<ContainerUpdate> updates) {
    return apply(updates);
  }

  RunPodSandboxRequest runPodSandbox(RunPodSandboxRequest request) {
    if (chain.isEmpty()) {
      return request;
    }
    PluginResult result = chain.runPodSandbox(CriTranslation.pod("", request.getConfig(), request.getRuntimeHandler()));
    apply(result.updates());
    return request.toBuilder().setConfig(CriTranslation.apply(request.getConfig(), result.adjustment())).build();
  }

  void sandboxCreated(String id, RunPodSandboxRequest forwarded) {
    if (chain.isEmpty()) {
      return;
    }
    store.put(SANDBOX + id, forwarded.toByteArray());
    sandboxes.put(id, forwarded);
    podContexts.remove(id);
  }

  void sandboxStopped(String id) {
    podOf(id).ifPresent(pod -> apply(chain.stopPodSandbox(pod).updates()));
  }

  void sandboxRemoving(String id) {
    podOf(id).ifPresent(pod -> apply(chain.removePodSandbox(pod).updates()));
  }

  void sandboxRemoved(String id) {
    if (sandboxes.remove(id) != null) {
      store.remove(SANDBOX + id);
    }
    podContexts.remove(id);
  }

  void podSandboxResourcesUpdating(UpdatePodSandboxResourcesRequest request) {
    podOf(request.getPodSandboxId()).ifPresent(pod -> apply(chain.updatePodSandboxResources(pod,
        CriTranslation.resources(request.getOverhead()), CriTranslation.resources(request.getResources())).updates()));
  }

  /** Records the pod's new resources (so a later Synchronize sees them), then tells the plugins. */
  void podSandboxResourcesUpdated(UpdatePodSandboxResourcesRequest request) {
    String id = request.getPodSandboxId();
    RunPodSandboxRequest recorded = sandboxes.get(id);
    if (recorded == null || chain.isEmpty()) {
      return;
    }
    RunPodSandboxRequest.Builder updated = recorded.toBuilder();
    updated.getConfigBuilder().getLinuxBuilder().setOverhead(request.getOverhead()).setResources(request.getResources());
    sandboxCreated(id, updated.build());
    podOf(id).ifPresent(pod -> apply(chain.postUpdatePodSandboxResources(pod).updates()));
  }

  Pending createContainer(CreateContainerRequest request) {
    if (chain.isEmpty()) {
      return new Pending(request, null, null);
    }
    PodContext pod = podOf(request.getPodSandboxId())
        .orElseGet(() -> CriTranslation.pod(request.getPodSandboxId(), request.getSandboxConfig(), ""));
    ContainerContext container = CriTranslation.container(pod, "", request.getConfig());
    // What the plugins record about the new container (a policy's allocation) commits with the
    // container's ownership record once the backend has created it: one commit per create, not
    // two. A kill -9 before then leaves neither, the state restart already handles (docs/policies.md).
    PluginResult result = state.deferringStoreChanges(() -> chain.createContainer(pod, container));
    apply(result.updates());
    if (result.adjustment().isEmpty()) {
      return new Pending(request, pod, container);
    }
    CreateContainerRequest.Builder adjusted = request.toBuilder();
    CriTranslation.applyTo(adjusted.getConfigBuilder(), result.adjustment());
    CreateContainerRequest forwarded = adjusted.build();
    return new Pending(forwarded, pod, container.withResources(
        CriTranslation.resources(forwarded.getConfig().getLinux().getResources())));
  }

  void containerCreated(Pending pending, String id) {
    if (pending.container() == null) {
      return;
    }
    // Only what a later event reads: the sandbox's config is recorded with the sandbox.
    CreateContainerRequest recorded = CreateContainerRequest.newBuilder()
        .setPodSandboxId(pending.request().getPodSandboxId()).setConfig(pending.request().getConfig()).build();
    store.put(CONTAINER + id, recorded.toByteArray());
    containers.put(id, recorded);
    apply(chain.postCreateContainer(pending.pod(), pending.container().withId(id)).updates());
  }

  /** The backend refused the container: whatever the plugins reserved for it is released. */
  void containerFailed(Pending pending) {
    if (pending.container() != null) {
      apply(chain.removeContainer(pending.pod(), pending.container()).updates());
    }
  }

  /** Whether a plugin sees this container's events, so its calls must run off the event loop. */
  boolean follows(String containerId) {
    return !chain.isEmpty() && containers.containsKey(containerId);
  }

  /**
   * Whether a plugin sees this sandbox's events (its stop and removal), so they need the call layer;
   * when none does, removing it is only a forward and dropping its record.
   */
  boolean followsSandbox(String sandboxId) {
    return !chain.isEmpty() && sandboxes.containsKey(sandboxId);
  }

  void containerStarting(String id) {
    context(id).ifPresent(c -> {
      PluginResult result = chain.startContainer(c.pod(), c.container());
      List<ContainerUpdate> updates = new ArrayList<>(result.updates());
      if (!result.adjustment().resources().isEmpty()) {
        updates.add(ContainerUpdate.of(id, result.adjustment().resources()));
      }
      apply(updates);
    });
  }

  void containerStarted(String id) {
    context(id).ifPresent(c -> apply(chain.postStartContainer(c.pod(), c.container()).updates()));
  }

  UpdateContainerResourcesRequest updateContainerResources(UpdateContainerResourcesRequest request) {
    Optional<Contexts> found = context(request.getContainerId());
    if (found.isEmpty()) {
      return request;
    }
    Contexts c = found.get();
    PluginResult result = chain.updateContainerResources(c.pod(), c.container(), CriTranslation.resources(request.getLinux()));
    apply(result.updates());
    if (result.adjustment().resources().isEmpty()) {
      return request;
    }
    return request.toBuilder().setLinux(CriTranslation.apply(request.getLinux(), result.adjustment().resources())).build();
  }

  void containerUpdated(UpdateContainerResourcesRequest applied) {
    String id = applied.getContainerId();
    if (recordResources(id, CriTranslation.resources(applied.getLinux()))) {
      context(id).ifPresent(c -> apply(chain.postUpdateContainerResources(c.pod(), c.container()).updates()));
    }
  }

  void containerStopped(String id) {
    context(id).ifPresent(c -> apply(chain.stopContainer(c.pod(), c.container()).updates()));
  }

  void containerRemoving(String id) {
    context(id).ifPresent(c -> apply(chain.removeContainer(c.pod(), c.container()).updates()));
  }

  void containerRemoved(String id) {
    if (containers.remove(id) != null) {
      store.remove(CONTAINER + id);
    }
  }

  private record Contexts(PodContext pod, ContainerContext container) {}

  private Optional<Contexts> context(String containerId) {
    CreateContainerRequest recorded = containers.get(containerId);
    if (recorded == null || chain.isEmpty()) {
      return Optional.empty();
    }
    PodContext pod = podOf(recorded.getPodSandboxId()).orElseGet(() ->
        CriTranslation.pod(recorded.getPodSandboxId(), recorded.getSandboxConfig(), ""));
    return Optional.of(new Contexts(pod, CriTranslation.container(pod, containerId, recorded.getConfig())));
  }

  private Optional<PodContext> podOf(String sandboxId) {
    if (chain.isEmpty() || !sandboxes.containsKey(sandboxId)) {
      return Optional.empty();
    }
    // A sandbox removed meanwhile leaves nothing behind: the mapping function sees it gone.
    return Optional.ofNullable(podContexts.computeIfAbsent(sandboxId, id -> {
      RunPodSandboxRequest request = sandboxes.get(id);
      return request == null ? null : CriTranslation.pod(id, request.getConfig(), request.getRuntimeHandler());
    }));
  }

  /**
   * Sends each update to the container's owner and records the new resources. A failed update is
   * logged: the container keeps running as it was, which is never worse than not updating.
   */
  private List<ContainerUpdate> apply(List<ContainerUpdate> updates) {
    List<ContainerUpdate> failed = new ArrayList<>();
    for (ContainerUpdate update : updates) {
      try {
        owners.ofContainer(update.containerId()).updateContainerResources(CriTranslation.update(update));
        recordResources(update.containerId(), update.resources());
      } catch (RuntimeException e) {
        if (update.ignoreFailure()) {
          log.debug("ignored failed update of container {}: {}", update.containerId(), e.toString());
        } else {
          log.warn("could not update container {} to {}: {}", update.containerId(), update.resources(), e.toString());
          failed.add(update);
        }
      }
    }
    return failed;
  }

  /** @return false when the container is not one this door tracks */
  private boolean recordResources(String id, LinuxResources change) {
    CreateContainerRequest recorded = containers.get(id);
    if (recorded == null) {
      return false;
    }
    LinuxContainerResources resources = CriTranslation.apply(recorded.getConfig().getLinux().getResources(), change);
    ContainerConfig.Builder config = recorded.getConfig().toBuilder();
    config.getLinuxBuilder().setResources(resources);
    CreateContainerRequest updated = recorded.toBuilder().setConfig(config).build();
    store.put(CONTAINER + id, updated.toByteArray());
    containers.put(id, updated);
    return true;
  }

  /**
   * The container as it really runs, per its owner's ContainerStatus; forgotten when no backend has
   * it any more. A backend that cannot be asked keeps the recorded resources.
   */
  private Optional<ContainerContext> checkRunning(String id) {
    try {
      ContainerStatusResponse status = owners.ofContainer(id)
          .containerStatus(ContainerStatusRequest.newBuilder().setContainerId(id).build());
      if (status.getStatus().getResources().hasLinux()) {
        LinuxResources real = CriTranslation.resources(status.getStatus().getResources().getLinux());
        LinuxResources recorded = CriTranslation.resources(containers.get(id).getConfig().getLinux().getResources());
        if (!real.cpusetCpus().equals(recorded.cpusetCpus())) {
          log.warn("container {} runs on cpus {} but was recorded with {}; taking what it runs with",
              id, real.cpusetCpus().orElse("(all)"), recorded.cpusetCpus().orElse("(all)"));
        }
        recordResources(id, real);
      }
    } catch (CrigateException.NotFound e) {
      containerRemoved(id);
      return Optional.empty();
    } catch (RuntimeException e) {
      if (GrpcErrors.codeOf(e) == io.grpc.Status.Code.NOT_FOUND) {
        containerRemoved(id);
        return Optional.empty();
      }
      log.warn("cannot check container {} ({}); using its recorded resources", id, e.toString());
    }
    return context(id).map(Contexts::container);
  }

  private void load() {
    store.entries().forEach((key, value) -> {
      try {
        if (key.startsWith(SANDBOX)) {
          sandboxes.put(key.substring(SANDBOX.length()), RunPodSandboxRequest.parseFrom(value));
        } else if (key.startsWith(CONTAINER)) {
          containers.put(key.substring(CONTAINER.length()), CreateContainerRequest.parseFrom(value));
        }
      } catch (InvalidProtocolBufferException e) {
        log.error("dropping unreadable adjustment record {}: {}", key, e.getMessage());
        store.remove(key);
      }
    });
  }
}

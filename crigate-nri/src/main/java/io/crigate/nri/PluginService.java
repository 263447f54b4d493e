package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.ConfigureRequest;
import io.crigate.api.nri.v1alpha1.ConfigureResponse;
import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.CreateContainerRequest;
import io.crigate.api.nri.v1alpha1.Empty;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.api.nri.v1alpha1.PostCreateContainerRequest;
import io.crigate.api.nri.v1alpha1.PostCreateContainerResponse;
import io.crigate.api.nri.v1alpha1.PostStartContainerRequest;
import io.crigate.api.nri.v1alpha1.PostStartContainerResponse;
import io.crigate.api.nri.v1alpha1.PostUpdateContainerRequest;
import io.crigate.api.nri.v1alpha1.PostUpdateContainerResponse;
import io.crigate.api.nri.v1alpha1.PostUpdatePodSandboxRequest;
import io.crigate.api.nri.v1alpha1.PostUpdatePodSandboxResponse;
import io.crigate.api.nri.v1alpha1.RemoveContainerRequest;
import io.crigate.api.nri.v1alpha1.RemoveContainerResponse;
import io.crigate.api.nri.v1alpha1.RemovePodSandboxRequest;
import io.crigate.api.nri.v1alpha1.RemovePodSandboxResponse;
import io.crigate.api.nri.v1alpha1.RunPodSandboxRequest;
import io.crigate.api.nri.v1alpha1.RunPodSandboxResponse;
import io.crigate.api.nri.v1alpha1.StartContainerRequest;
import io.crigate.api.nri.v1alpha1.StartContainerResponse;
import io.crigate.api.nri.v1alpha1.StateChangeEvent;
import io.crigate.api.nri.v1alpha1.StopContainerRequest;
import io.crigate.api.nri.v1alpha1.StopContainerResponse;
import io.crigate.api.nri.v1alpha1.StopPodSandboxRequest;
import io.crigate.api.nri.v1alpha1.StopPodSandboxResponse;
import io.crigate.api.nri.v1alpha1.SynchronizeRequest;
import io.crigate.api.nri.v1alpha1.SynchronizeResponse;
import io.crigate.api.nri.v1alpha1.UpdateContainerRequest;
import io.crigate.api.nri.v1alpha1.UpdatePodSandboxRequest;
import io.crigate.api.nri.v1alpha1.UpdatePodSandboxResponse;
import io.crigate.api.nri.v1alpha1.ValidateContainerAdjustmentRequest;
import io.crigate.api.nri.v1alpha1.ValidateContainerAdjustmentResponse;
import io.crigate.spi.CrigateException;
import io.crigate.ttrpc.Code;
import io.crigate.ttrpc.ServiceDefinition;
import io.crigate.ttrpc.TtrpcException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Plugin service a runtime calls on connection 1, served from an {@link NriHandler}. One per
 * connection: it holds that connection's Configure answer and any partial Synchronize.
 */
final class PluginService {

  private static final Logger LOG = LoggerFactory.getLogger(PluginService.class);

  private final ConfiguredHandler configured;
  private final Runnable onShutdown;
  /** Until Configure, which a runtime sends first, nothing is subscribed and every event is answered empty. */
  private volatile NriHandler handler = Set::of;
  private volatile Duration requestTimeout = Duration.ofSeconds(2);
  private final List<PodSandbox> syncPods = new ArrayList<>();
  private final List<Container> syncContainers = new ArrayList<>();

  PluginService(ConfiguredHandler configured, Runnable onShutdown) {
    this.configured = configured;
    this.onShutdown = onShutdown;
  }

  ServiceDefinition definition() {
    return ServiceDefinition.builder(NriServices.PLUGIN)
        .unary("Configure", ConfigureRequest.parser(), (c, r) -> configure(r))
        .unary("Synchronize", SynchronizeRequest.parser(), (c, r) -> timed("Synchronize", () -> synchronize(r)))
        .unary("Shutdown", Empty.parser(), (c, r) -> {
          LOG.info("NRI runtime asked the plugin to shut down");
          onShutdown.run();
          return Empty.getDefaultInstance();
        })
        .unary("CreateContainer", CreateContainerRequest.parser(),
            (c, r) -> timed("CreateContainer", () -> handler.createContainer(r.getPod(), r.getContainer())))
        .unary("UpdateContainer", UpdateContainerRequest.parser(),
            (c, r) -> timed("UpdateContainer", () -> handler.updateContainer(r.getPod(), r.getContainer(), r.getLinuxResources())))
        .unary("StopContainer", StopContainerRequest.parser(), (c, r) -> timed("StopContainer",
            () -> StopContainerResponse.newBuilder().addAllUpdate(handler.stopContainer(r.getPod(), r.getContainer())).build()))
        .unary("RunPodSandbox", RunPodSandboxRequest.parser(),
            (c, r) -> observe(Event.RUN_POD_SANDBOX, r.getPod(), Container.getDefaultInstance(), RunPodSandboxResponse.getDefaultInstance()))
        .unary("StopPodSandbox", StopPodSandboxRequest.parser(),
            (c, r) -> observe(Event.STOP_POD_SANDBOX, r.getPod(), Container.getDefaultInstance(), StopPodSandboxResponse.getDefaultInstance()))
        .unary("RemovePodSandbox", RemovePodSandboxRequest.parser(),
            (c, r) -> observe(Event.REMOVE_POD_SANDBOX, r.getPod(), Container.getDefaultInstance(), RemovePodSandboxResponse.getDefaultInstance()))
        .unary("UpdatePodSandbox", UpdatePodSandboxRequest.parser(), (c, r) -> timed("UpdatePodSandbox", () -> {
          handler.updatePodSandbox(r.getPod(), r.getOverheadLinuxResources(), r.getLinuxResources());
          return UpdatePodSandboxResponse.getDefaultInstance();
        }))
        .unary("PostUpdatePodSandbox", PostUpdatePodSandboxRequest.parser(),
            (c, r) -> observe(Event.POST_UPDATE_POD_SANDBOX, r.getPod(), Container.getDefaultInstance(), PostUpdatePodSandboxResponse.getDefaultInstance()))
        .unary("StartContainer", StartContainerRequest.parser(),
            (c, r) -> observe(Event.START_CONTAINER, r.getPod(), r.getContainer(), StartContainerResponse.getDefaultInstance()))
        .unary("RemoveContainer", RemoveContainerRequest.parser(),
            (c, r) -> observe(Event.REMOVE_CONTAINER, r.getPod(), r.getContainer(), RemoveContainerResponse.getDefaultInstance()))
        .unary("PostCreateContainer", PostCreateContainerRequest.parser(),
            (c, r) -> observe(Event.POST_CREATE_CONTAINER, r.getPod(), r.getContainer(), PostCreateContainerResponse.getDefaultInstance()))
        .unary("PostStartContainer", PostStartContainerRequest.parser(),
            (c, r) -> observe(Event.POST_START_CONTAINER, r.getPod(), r.getContainer(), PostStartContainerResponse.getDefaultInstance()))
        .unary("PostUpdateContainer", PostUpdateContainerRequest.parser(),
            (c, r) -> observe(Event.POST_UPDATE_CONTAINER, r.getPod(), r.getContainer(), PostUpdateContainerResponse.getDefaultInstance()))
        // runtimes before NRI 0.2 report the informing events through StateChange
        .unary("StateChange", StateChangeEvent.parser(),
            (c, r) -> observe(r.getEvent(), r.getPod(), r.getContainer(), Empty.getDefaultInstance()))
        .unary("ValidateContainerAdjustment", ValidateContainerAdjustmentRequest.parser(),
            (c, r) -> ValidateContainerAdjustmentResponse.getDefaultInstance())
        .build();
  }

  private ConfigureResponse configure(ConfigureRequest r) {
    if (r.getRequestTimeout() > 0) {
      requestTimeout = Duration.ofMillis(r.getRequestTimeout());
    }
    try {
      handler = configured.configure(r.getConfig());
    } catch (CrigateException.InvalidArgument e) {
      LOG.error("NRI runtime {} passed a configuration crigate cannot use: {}", r.getRuntimeName(), e.getMessage());
      throw new TtrpcException(Code.INVALID_ARGUMENT, "plugin configuration: " + e.getMessage());
    }
    int mask = Events.mask(handler.events());
    LOG.info("configured by NRI runtime {} {} (NRI {}), request timeout {}, events {}", r.getRuntimeName(),
        r.getRuntimeVersion(), r.getNRIVersion(), requestTimeout, handler.events());
    return ConfigureResponse.newBuilder().setEvents(mask).build();
  }

  /** Multi-part synchronisation: parts with {@code more} are collected and answered {@code more}. */
  private synchronized SynchronizeResponse synchronize(SynchronizeRequest r) {
    syncPods.addAll(r.getPodsList());
    syncContainers.addAll(r.getContainersList());
    if (r.getMore()) {
      return SynchronizeResponse.newBuilder().setMore(true).build();
    }
    List<PodSandbox> pods = List.copyOf(syncPods);
    List<Container> containers = List.copyOf(syncContainers);
    syncPods.clear();
    syncContainers.clear();
    LOG.info("synchronizing with {} pods and {} containers", pods.size(), containers.size());
    return SynchronizeResponse.newBuilder().addAllUpdate(handler.synchronize(pods, containers)).build();
  }

  private <R> R observe(Event event, PodSandbox pod, Container container, R answer) {
    return timed(event.name(), () -> {
      handler.observe(event, pod, container);
      return answer;
    });
  }

  /** Runs a handler, logging when it overran the runtime's request timeout (the runtime gave up). */
  private <R> R timed(String what, Supplier<R> call) {
    long start = System.nanoTime();
    try {
      return call.get();
    } finally {
      Duration took = Duration.ofNanos(System.nanoTime() - start);
      if (took.compareTo(requestTimeout) > 0) {
        LOG.warn("NRI {} took {} ms, over the runtime's {} ms request timeout", what, took.toMillis(), requestTimeout.toMillis());
      }
    }
  }
}

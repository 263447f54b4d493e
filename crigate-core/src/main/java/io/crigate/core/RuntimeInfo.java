package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.Causes;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * Version, Status and the runtime configuration calls.
 *
 * <p>Version is answered by crigate itself: it is what the kubelet talks to, the answer must not
 * depend on a backend being up when the kubelet starts, and the node then reports {@code crigate}
 * as its runtime. Status reports the default backend's conditions, because its pods are the ones the
 * kubelet cannot place elsewhere, plus one condition per backend (the default one too) so an outage
 * is visible in {@code kubectl describe node} without making the whole node NotReady.
 */
final class RuntimeInfo {

  static final String RUNTIME_NAME = "crigate";
  static final String RUNTIME_API_VERSION = "v1";
  /** CRI's own version field; containerd and CRI-O answer 0.1.0 as well. */
  static final String KUBELET_API_VERSION = "0.1.0";
  static final String BACKEND_CONDITION_PREFIX = "crigate.io/backend-ready/";

  private final BackendRoutes routes;
  private final BackendCalls calls;
  private final BackendSweep sweep;
  private final String version;

  RuntimeInfo(BackendRoutes routes, BackendCalls calls, BackendSweep sweep) {
    this.routes = routes;
    this.calls = calls;
    this.sweep = sweep;
    this.version = projectVersion();
  }

  VersionResponse version(VersionRequest request) {
    return VersionResponse.newBuilder()
        .setVersion(KUBELET_API_VERSION)
        .setRuntimeName(RUNTIME_NAME)
        .setRuntimeVersion(version)
        .setRuntimeApiVersion(RUNTIME_API_VERSION)
        .build();
  }

  /**
   * Asks every backend at once, without blocking: an unhealthy backend is not asked (its condition
   * says why), and one that does not answer within its call timeout is reported the same way.
   */
  CompletionStage<StatusResponse> status(StatusRequest request) {
    List<CompletableFuture<FanOut.Reply<StatusResponse>>> asked = routes.all().stream()
        .map(backend -> calls.call(backend, BackendCall.STATUS, request)
            .handle((answer, failure) -> new FanOut.Reply<>(backend, answer, Causes.unwrapCompletion(failure)))
            .toCompletableFuture())
        .toList();
    return CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new)).thenApply(done -> answer(
        asked.stream().map(CompletableFuture::join).collect(Collectors.toMap(reply -> reply.backend().name(), Function.identity()))));
  }

  /** RuntimeReady and NetworkReady follow the default backend only; every backend gets a condition of its own. */
  private StatusResponse answer(Map<String, FanOut.Reply<StatusResponse>> replies) {
    FanOut.Reply<StatusResponse> primary = replies.get(routes.defaultBackend().name());
    StatusResponse.Builder answer = primary.ok() ? primary.value().toBuilder().clearRuntimeHandlers() : unreachable(primary);
    RuntimeStatus.Builder conditions = answer.getStatusBuilder();
    routes.all().forEach(backend -> conditions.addConditions(backendCondition(replies.get(backend.name()))));
    for (BackendRoutes.Route route : routes.routes()) {
      answer.addRuntimeHandlers(handler(route, replies.get(route.backend().name())));
    }
    return answer.build();
  }

  RuntimeConfigResponse runtimeConfig(RuntimeConfigRequest request) {
    return routes.defaultBackend().runtimeConfig(request);
  }

  /** Goes to every backend: each must learn the pod CIDR. */
  UpdateRuntimeConfigResponse updateRuntimeConfig(UpdateRuntimeConfigRequest request) {
    sweep.everywhere("UpdateRuntimeConfig", backend -> backend.updateRuntimeConfig(request));
    return UpdateRuntimeConfigResponse.getDefaultInstance();
  }

  /** The kubelet's name for the handler, with the features the owning backend reports for its own handler. */
  private static RuntimeHandler handler(BackendRoutes.Route route, FanOut.Reply<StatusResponse> reply) {
    String kubeletName = HandlerBinding.normalize(route.binding().handler()).equals(HandlerBinding.DEFAULT_HANDLER)
        ? "" : route.binding().handler();
    RuntimeHandler.Builder handler = RuntimeHandler.newBuilder().setName(kubeletName);
    Optional.ofNullable(reply).filter(FanOut.Reply::ok).stream()
        .flatMap(ok -> ok.value().getRuntimeHandlersList().stream())
        .filter(reported -> reported.getName().equals(route.binding().backendHandler()))
        .findFirst()
        .ifPresent(reported -> handler.setFeatures(reported.getFeatures()));
    return handler.build();
  }

  private static RuntimeCondition backendCondition(FanOut.Reply<StatusResponse> reply) {
    RuntimeCondition.Builder condition = RuntimeCondition.newBuilder().setType(BACKEND_CONDITION_PREFIX + reply.backend().name());
    if (!reply.ok()) {
      return condition.setStatus(false).setReason("BackendUnavailable").setMessage(String.valueOf(reply.failure().getMessage())).build();
    }
    Optional<RuntimeCondition> ready = reply.value().getStatus().getConditionsList().stream()
        .filter(reported -> reported.getType().equals("RuntimeReady")).findFirst();
    return ready.map(reported -> condition.setStatus(reported.getStatus()).setReason(reported.getReason())
            .setMessage(reported.getMessage()).build())
        .orElseGet(() -> condition.setStatus(true).build());
  }

  private static StatusResponse.Builder unreachable(FanOut.Reply<StatusResponse> reply) {
    String message = "default backend %s did not answer: %s".formatted(reply.backend().name(), reply.failure().getMessage());
    StatusResponse.Builder answer = StatusResponse.newBuilder();
    for (String type : List.of("RuntimeReady", "NetworkReady")) {
      answer.getStatusBuilder().addConditions(RuntimeCondition.newBuilder()
          .setType(type).setStatus(false).setReason("DefaultBackendUnavailable").setMessage(message));
    }
    return answer;
  }

  private static String projectVersion() {
    try (InputStream in = RuntimeInfo.class.getResourceAsStream("version.properties")) {
      Properties properties = new Properties();
      if (in != null) {
        properties.load(in);
      }
      return properties.getProperty("version", "dev");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

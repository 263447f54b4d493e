package io.crigate.core;

import io.crigate.api.cri.v1.*;
import io.crigate.core.state.ContainerRecord;
import io.crigate.core.state.GatewayState;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * The runtime list calls: every backend's part, merged, deduplicated by id (the first backend to
 * report an id wins, default backend first), then filtered as the request asks. The streaming
 * variants of the same calls reuse these methods.
 */
final class Listings {

  private final BackendSweep sweep;
  private final GatewayState state;

  Listings(BackendSweep sweep, GatewayState state) {
    this.sweep = sweep;
    this.state = state;
  }

  CompletionStage<List<PodSandbox>> podSandboxes(PodSandboxFilter filter) {
    ListPodSandboxRequest request = ListPodSandboxRequest.newBuilder().setFilter(filter).build();
    return sweep.collectAsync(BackendCall.LIST_POD_SANDBOX, request, ListPodSandboxResponse::getItemsList)
        .thenApply(parts -> merge(parts, PodSandbox::getId, ListFilters.sandboxes(filter)));
  }

  CompletionStage<List<Container>> containers(ContainerFilter filter) {
    ListContainersRequest request = ListContainersRequest.newBuilder().setFilter(filter).build();
    return sweep.collectAsync(BackendCall.LIST_CONTAINERS, request, ListContainersResponse::getContainersList)
        .thenApply(parts -> merge(parts, Container::getId, ListFilters.containers(filter)));
  }

  List<ContainerStats> containerStats(ContainerStatsFilter filter) {
    ListContainerStatsRequest request = ListContainerStatsRequest.newBuilder().setFilter(filter).build();
    return merge(sweep.collect("ListContainerStats", backend -> backend.listContainerStats(request).getStatsList()),
        stats -> stats.getAttributes().getId(),
        ListFilters.containerStats(filter, id -> state.containers().find(id).map(ContainerRecord::sandboxId)));
  }

  List<PodSandboxStats> podSandboxStats(PodSandboxStatsFilter filter) {
    ListPodSandboxStatsRequest request = ListPodSandboxStatsRequest.newBuilder().setFilter(filter).build();
    return merge(sweep.collect("ListPodSandboxStats", backend -> backend.listPodSandboxStats(request).getStatsList()),
        stats -> stats.getAttributes().getId(), ListFilters.sandboxStats(filter));
  }

  List<PodSandboxMetrics> podSandboxMetrics() {
    ListPodSandboxMetricsRequest request = ListPodSandboxMetricsRequest.getDefaultInstance();
    return merge(sweep.collect("ListPodSandboxMetrics", backend -> backend.listPodSandboxMetrics(request).getPodMetricsList()),
        PodSandboxMetrics::getPodSandboxId, metrics -> true);
  }

  List<MetricDescriptor> metricDescriptors() {
    ListMetricDescriptorsRequest request = ListMetricDescriptorsRequest.getDefaultInstance();
    return merge(sweep.collect("ListMetricDescriptors", backend -> backend.listMetricDescriptors(request).getDescriptorsList()),
        MetricDescriptor::getName, descriptor -> true);
  }

  private static <T> List<T> merge(List<T> parts, Function<T, String> id, Predicate<T> filter) {
    Map<String, T> byId = new LinkedHashMap<>();
    for (T item : parts) {
      if (filter.test(item)) {
        byId.putIfAbsent(id.apply(item), item);
      }
    }
    return List.copyOf(byId.values());
  }
}

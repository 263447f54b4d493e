package io.crigate.core;

import io.crigate.api.cri.v1.*;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * CRI list filters, applied by core after merging because backends may ignore them. As containerd
 * does, an id filter also matches by prefix, so a truncated id from {@code crictl} works.
 */
final class ListFilters {

  private ListFilters() {}

  static Predicate<PodSandbox> sandboxes(PodSandboxFilter filter) {
    return sandbox -> idMatches(filter.getId(), sandbox.getId())
        && (!filter.hasState() || filter.getState().getState() == sandbox.getState())
        && labelsMatch(filter.getLabelSelectorMap(), sandbox.getLabelsMap());
  }

  static Predicate<Container> containers(ContainerFilter filter) {
    return container -> idMatches(filter.getId(), container.getId())
        && idMatches(filter.getPodSandboxId(), container.getPodSandboxId())
        && (!filter.hasState() || filter.getState().getState() == container.getState())
        && labelsMatch(filter.getLabelSelectorMap(), container.getLabelsMap());
  }

  /** Stats carry no sandbox id, so {@code sandboxOf} supplies it from the ownership records. */
  static Predicate<ContainerStats> containerStats(ContainerStatsFilter filter, Function<String, Optional<String>> sandboxOf) {
    return stats -> idMatches(filter.getId(), stats.getAttributes().getId())
        && (filter.getPodSandboxId().isEmpty()
            || sandboxOf.apply(stats.getAttributes().getId()).filter(id -> idMatches(filter.getPodSandboxId(), id)).isPresent())
        && labelsMatch(filter.getLabelSelectorMap(), stats.getAttributes().getLabelsMap());
  }

  static Predicate<PodSandboxStats> sandboxStats(PodSandboxStatsFilter filter) {
    return stats -> idMatches(filter.getId(), stats.getAttributes().getId())
        && labelsMatch(filter.getLabelSelectorMap(), stats.getAttributes().getLabelsMap());
  }

  /** An image filter names the image by id, id prefix, tag or digest. */
  static Predicate<Image> images(ImageFilter filter) {
    String wanted = filter.getImage().getImage();
    return image -> wanted.isEmpty()
        || image.getId().startsWith(wanted)
        || image.getRepoTagsList().contains(wanted)
        || image.getRepoDigestsList().contains(wanted);
  }

  private static boolean idMatches(String wanted, String id) {
    return wanted.isEmpty() || id.startsWith(wanted);
  }

  /** A label selector matches when every selected label is present with the same value. */
  private static boolean labelsMatch(Map<String, String> selector, Map<String, String> labels) {
    return labels.entrySet().containsAll(selector.entrySet());
  }
}

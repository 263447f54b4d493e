package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import java.util.Set;

/**
 * Koordinator's CPUSetAllocator hook: koord-scheduler writes the CPUs it bound an LSE/LSR pod to
 * into {@code scheduling.koordinator.sh/resource-status}; the hook pins every container there and
 * lifts the CFS quota (-1), because a quota on pinned CPUs only throttles (Koordinator issue 489).
 */
final class CpusetAllocatorHook implements Hook {

  static final String NAME = "CPUSetAllocator";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Stage> stages() {
    return Stage.RESOURCE_STAGES;
  }

  @Override
  public Adjustment onPod(Stage stage, PodContext pod) {
    return cpuset(pod).isEmpty() ? Adjustment.NONE
        : Adjustment.of(LinuxResources.builder().cpuQuota(BatchResourceHook.UNLIMITED).build());
  }

  @Override
  public Adjustment onContainer(Stage stage, PodContext pod, ContainerContext container) {
    String cpuset = cpuset(pod);
    if (cpuset.isEmpty()) {
      return Adjustment.NONE;
    }
    return Adjustment.of(LinuxResources.builder().cpusetCpus(cpuset).cpuQuota(BatchResourceHook.UNLIMITED).build());
  }

  private static String cpuset(PodContext pod) {
    JsonNode status = AnnotationJson.read(pod.annotations(), KoordinatorKeys.RESOURCE_STATUS);
    JsonNode cpuset = status.path("cpuset");
    if (cpuset.isMissingNode() || cpuset.isNull()) {
      return "";
    }
    if (!cpuset.isTextual() || !SettingsFields.isCpuList(cpuset.asText())) {
      throw AnnotationJson.invalid(KoordinatorKeys.RESOURCE_STATUS,
          "field cpuset must be a Linux CPU list like 0-3,6, got " + cpuset);
    }
    return cpuset.asText();
  }
}

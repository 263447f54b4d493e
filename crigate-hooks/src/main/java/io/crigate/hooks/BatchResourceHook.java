package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.Quantity;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;

/**
 * Koordinator's BatchResource hook: a BE pod asks for {@code kubernetes.io/batch-cpu} and
 * {@code kubernetes.io/batch-memory}, which the kubelet does not turn into cgroup values, so the
 * hook does: CPU shares from the batch CPU request, a CFS quota from its limit, a memory limit
 * from the batch memory limit. The values come from the {@code node.koordinator.sh/extended-resource-spec}
 * annotation, because CRI requests carry no extended resources.
 */
final class BatchResourceHook implements Hook {

  static final String NAME = "BatchResource";

  static final long SHARES_PER_CPU = 1024;
  static final long MIN_SHARES = 2;
  static final long CFS_PERIOD_US = 100_000;
  static final long MIN_CFS_QUOTA_US = 1_000;
  static final long UNLIMITED = -1;

  private final boolean cfsQuota;

  /** @param cfsQuota false sets quota -1 (unlimited) for batch containers, as Koordinator's rule switch does */
  BatchResourceHook(boolean cfsQuota) {
    this.cfsQuota = cfsQuota;
  }

  static BatchResourceHook fromSettings(JsonNode settings) {
    return new BatchResourceHook(settings.path("cfsQuota").asBoolean(true));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Stage> stages() {
    return Stage.RESOURCE_STAGES;
  }

  /** The pod cgroup holds all containers: requests add up; one unlimited container leaves the pod unlimited. */
  @Override
  public Adjustment onPod(Stage stage, PodContext pod) {
    JsonNode containers = specOf(pod);
    if (containers.isMissingNode()) {
      return Adjustment.NONE;
    }
    long milliRequest = 0;
    long milliLimit = 0;
    long memoryLimit = 0;
    for (Iterator<Map.Entry<String, JsonNode>> it = containers.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> c = it.next();
      milliRequest += Math.max(0, amount(c.getValue(), "requests", KoordinatorKeys.BATCH_CPU, c.getKey()));
      long cpu = amount(c.getValue(), "limits", KoordinatorKeys.BATCH_CPU, c.getKey());
      long memory = amount(c.getValue(), "limits", KoordinatorKeys.BATCH_MEMORY, c.getKey());
      milliLimit = milliLimit < 0 || cpu <= 0 ? UNLIMITED : milliLimit + cpu;
      memoryLimit = memoryLimit < 0 || memory <= 0 ? UNLIMITED : memoryLimit + memory;
    }
    return Adjustment.of(resources(milliRequest, milliLimit, memoryLimit));
  }

  @Override
  public Adjustment onContainer(Stage stage, PodContext pod, ContainerContext container) {
    JsonNode spec = specOf(pod).path(container.name());
    if (spec.isMissingNode()) {
      return Adjustment.NONE;
    }
    long milliRequest = Math.max(0, amount(spec, "requests", KoordinatorKeys.BATCH_CPU, container.name()));
    long milliLimit = amount(spec, "limits", KoordinatorKeys.BATCH_CPU, container.name());
    long memoryLimit = amount(spec, "limits", KoordinatorKeys.BATCH_MEMORY, container.name());
    return Adjustment.of(resources(milliRequest, milliLimit, memoryLimit));
  }

  /**
   * shares = max(2, request * 1024 / 1000); quota = limit * 100000 / 1000 us, at least 1000 us, -1
   * without a limit; memory = the limit in bytes, left to the kubelet without one.
   */
  LinuxResources resources(long milliRequest, long milliLimit, long memoryLimit) {
    long shares = Math.max(MIN_SHARES, milliRequest * SHARES_PER_CPU / 1000);
    long quota = milliLimit <= 0 ? UNLIMITED : Math.max(MIN_CFS_QUOTA_US, milliLimit * CFS_PERIOD_US / 1000);
    LinuxResources.Builder r = LinuxResources.builder().cpuShares(shares).cpuQuota(cfsQuota ? quota : UNLIMITED);
    if (memoryLimit > 0) {
      r.memoryLimit(memoryLimit);
    }
    return r.build();
  }

  /** The containers map of a BE pod's spec; missing for any other pod or when the pod has none. */
  private static JsonNode specOf(PodContext pod) {
    if (KoordQosClass.of(pod.labels()) != KoordQosClass.BE) {
      return MissingNode.getInstance();
    }
    return AnnotationJson.read(pod.annotations(), KoordinatorKeys.EXTENDED_RESOURCE_SPEC).path("containers");
  }

  /** A whole amount from {@code requests} or {@code limits}; -1 when absent. */
  private static long amount(JsonNode container, String list, String resource, String containerName) {
    JsonNode value = container.path(list).path(resource);
    if (value.isMissingNode() || value.isNull()) {
      return UNLIMITED;
    }
    try {
      return Quantity.bytes(value.asText());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw AnnotationJson.invalid(KoordinatorKeys.EXTENDED_RESOURCE_SPEC,
          "containers.%s.%s.%s: %s".formatted(containerName, list, resource, e.getMessage()));
    }
  }
}

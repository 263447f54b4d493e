package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.Quantity;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Koordinator's GPU env hook: the minors koord-scheduler allocated
 * ({@code scheduling.koordinator.sh/device-allocated}) become {@code NVIDIA_VISIBLE_DEVICES}, which
 * the NVIDIA container runtime reads. For pods that ask for HAMi-core isolation
 * ({@code koordinator.sh/gpu-isolation-provider: HAMi-core}) and a partial GPU, the memory and SM
 * limits go into HAMi-core's {@code CUDA_DEVICE_MEMORY_LIMIT} and {@code CUDA_DEVICE_SM_LIMIT}.
 * Env can only be set before the container starts, so this hook has no effect in standalone mode.
 */
final class GpuEnvHook implements Hook {

  static final String NAME = "GPUEnvInject";
  static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
  static final String MEMORY_LIMIT = "CUDA_DEVICE_MEMORY_LIMIT";
  static final String SM_LIMIT = "CUDA_DEVICE_SM_LIMIT";

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Stage> stages() {
    return Set.of(Stage.PRE_CREATE_CONTAINER);
  }

  @Override
  public Adjustment onContainer(Stage stage, PodContext pod, ContainerContext container) {
    JsonNode gpus = AnnotationJson.read(pod.annotations(), KoordinatorKeys.DEVICE_ALLOCATED).path("gpu");
    if (gpus.isMissingNode() || gpus.isNull() || gpus.isEmpty()) {
      return Adjustment.NONE;
    }
    if (!gpus.isArray()) {
      throw AnnotationJson.invalid(KoordinatorKeys.DEVICE_ALLOCATED, "field gpu must be a list");
    }
    StringJoiner minors = new StringJoiner(",");
    for (JsonNode gpu : gpus) {
      JsonNode minor = gpu.path("minor");
      if (!minor.canConvertToInt() || minor.asInt() < 0) {
        throw AnnotationJson.invalid(KoordinatorKeys.DEVICE_ALLOCATED,
            "every gpu entry needs a non-negative integer minor, got " + gpu);
      }
      minors.add(Integer.toString(minor.asInt()));
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put(VISIBLE_DEVICES, minors.toString());
    if (KoordinatorKeys.HAMI_CORE.equals(pod.labels().get(KoordinatorKeys.GPU_ISOLATION_PROVIDER_LABEL))) {
      env.putAll(hamiLimits(gpus.get(0).path("resources")));
    }
    Adjustment.Builder b = Adjustment.builder();
    env.forEach(b::env);
    return b.build();
  }

  /** A whole GPU (ratio 100) needs no HAMi-core limits; a share needs its memory, and its SM share if given. */
  private static Map<String, String> hamiLimits(JsonNode resources) {
    long ratio = amount(resources, KoordinatorKeys.GPU_MEMORY_RATIO, true);
    if (ratio >= 100) {
      return Map.of();
    }
    Map<String, String> env = new LinkedHashMap<>();
    env.put(MEMORY_LIMIT, Long.toString(amount(resources, KoordinatorKeys.GPU_MEMORY, true)));
    long core = amount(resources, KoordinatorKeys.GPU_CORE, false);
    if (core >= 0) {
      env.put(SM_LIMIT, Long.toString(core));
    }
    return env;
  }

  private static long amount(JsonNode resources, String key, boolean required) {
    JsonNode value = resources.path(key);
    if (value.isMissingNode() || value.isNull()) {
      if (required) {
        throw AnnotationJson.invalid(KoordinatorKeys.DEVICE_ALLOCATED, "gpu resources lack " + key + " for HAMi-core");
      }
      return -1;
    }
    try {
      return Quantity.bytes(value.asText());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw AnnotationJson.invalid(KoordinatorKeys.DEVICE_ALLOCATED, "gpu resource %s: %s".formatted(key, e.getMessage()));
    }
  }
}

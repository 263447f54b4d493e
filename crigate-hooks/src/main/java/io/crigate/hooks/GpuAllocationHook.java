package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PodContext;
import java.util.Set;
import java.util.StringJoiner;

/**
 * Koordinator's GPU hook (configured as {@code GPUEnvInject}, its historical name): the minors
 * koord-scheduler allocated ({@code scheduling.koordinator.sh/device-allocated}) become
 * {@code NVIDIA_VISIBLE_DEVICES}, which the NVIDIA container runtime reads. A pod that asks for
 * HAMi-core isolation ({@code koordinator.sh/gpu-isolation-provider: HAMi-core}) also gets what
 * {@link HamiCore} adds for its share. Env and mounts can only be set before the container starts,
 * so in standalone mode this hook's answer is logged, not applied.
 */
final class GpuAllocationHook implements Hook {

  static final String NAME = "GPUEnvInject";
  static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";

  private final HamiCore hamiCore;

  GpuAllocationHook(HamiCore hamiCore) {
    this.hamiCore = hamiCore;
  }

  static GpuAllocationHook fromSettings(JsonNode settings) {
    return new GpuAllocationHook(HamiCore.fromSettings(settings, "hooks." + NAME));
  }

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
    Adjustment.Builder b = Adjustment.builder().env(VISIBLE_DEVICES, minors.toString());
    if (KoordinatorKeys.HAMI_CORE.equals(pod.labels().get(KoordinatorKeys.GPU_ISOLATION_PROVIDER_LABEL))) {
      // Koordinator reads the share from the first allocated GPU
      hamiCore.addShare(gpus.get(0).path("resources"), b);
    }
    return b.build();
  }
}

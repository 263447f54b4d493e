package io.crigate.spi.adjust.cri;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.LinuxContainerResources;
import io.crigate.api.cri.v1.LinuxPodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.UpdateContainerResourcesRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.Mount;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceAnnotation;
import io.crigate.spi.adjust.ResourceRequirements;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * CRI messages to and from the engine's records, for every door that speaks CRI (the proxy path and
 * the standalone reconciler). CRI uses 0 for "unset" in LinuxContainerResources; so does this mapping.
 */
public final class CriTranslation {

  /** Kubernetes' CFS period when none is given, in microseconds. */
  static final long DEFAULT_CPU_PERIOD_MICROS = 100_000;

  private CriTranslation() {}

  /**
   * @param sandboxId empty before the runtime assigned one
   * @throws CrigateException.InvalidArgument when the webhook annotation is present but unreadable
   */
  public static PodContext pod(String sandboxId, PodSandboxConfig config, String runtimeHandler) {
    Map<String, ResourceRequirements> containers = annotated(config.getAnnotationsMap());
    LinuxPodSandboxConfig linux = config.getLinux();
    ResourceRequirements podResources = containers.isEmpty()
        ? requirements(linux.getResources())
        : containers.values().stream().map(ResourceRequirements::defaulted).reduce(ResourceRequirements.NONE, ResourceRequirements::plus);
    QosClass qos = containers.isEmpty()
        ? QosClass.fromCgroupParent(linux.getCgroupParent(), QosClass.of(List.of(podResources)))
        : QosClass.of(containers.values());
    return new PodContext(sandboxId, config.getMetadata().getName(), config.getMetadata().getNamespace(),
        config.getMetadata().getUid(), qos, config.getLabelsMap(), config.getAnnotationsMap(), linux.getCgroupParent(),
        runtimeHandler, podResources, containers);
  }

  /** @param id empty before the runtime assigned one */
  public static ContainerContext container(PodContext pod, String id, ContainerConfig config) {
    LinuxContainerResources resources = config.getLinux().getResources();
    String name = config.getMetadata().getName();
    Map<String, String> env = new LinkedHashMap<>();
    config.getEnvsList().forEach(kv -> env.put(kv.getKey(), kv.getValue().toStringUtf8()));
    return new ContainerContext(new ContainerKey(pod.id(), name, config.getMetadata().getAttempt()), id,
        config.getLabelsMap(), config.getAnnotationsMap(), env,
        pod.containerResources().getOrDefault(name, requirements(resources)), resources(resources));
  }

  /**
   * Requests and limits as far as CRI values reveal them: the kubelet sets shares = milli × 1024 / 1000
   * and quota = milli × period / 1000; the memory request never reaches CRI.
   */
  public static ResourceRequirements requirements(LinuxContainerResources r) {
    long request = r.getCpuShares() > 2 ? (r.getCpuShares() * 1000 + 512) / 1024 : 0;
    long period = r.getCpuPeriod() > 0 ? r.getCpuPeriod() : DEFAULT_CPU_PERIOD_MICROS;
    long limit = r.getCpuQuota() > 0 ? (r.getCpuQuota() * 1000 + period - 1) / period : 0;
    long memory = Math.max(0, r.getMemoryLimitInBytes());
    return new ResourceRequirements(request, limit, 0, memory);
  }

  public static LinuxResources resources(LinuxContainerResources r) {
    LinuxResources.Builder b = LinuxResources.builder();
    if (r.getCpuShares() != 0) {
      b.cpuShares(r.getCpuShares());
    }
    if (r.getCpuQuota() != 0) {
      b.cpuQuota(r.getCpuQuota());
    }
    if (r.getCpuPeriod() != 0) {
      b.cpuPeriod(r.getCpuPeriod());
    }
    if (!r.getCpusetCpus().isEmpty()) {
      b.cpusetCpus(r.getCpusetCpus());
    }
    if (!r.getCpusetMems().isEmpty()) {
      b.cpusetMems(r.getCpusetMems());
    }
    if (r.getMemoryLimitInBytes() != 0) {
      b.memoryLimit(r.getMemoryLimitInBytes());
    }
    r.getUnifiedMap().forEach(b::unified);
    return b.build();
  }

  /** {@code base} with every field {@code change} sets replaced. */
  public static LinuxContainerResources apply(LinuxContainerResources base, LinuxResources change) {
    LinuxContainerResources.Builder b = base.toBuilder();
    applyTo(b, change);
    return b.build();
  }

  private static void applyTo(LinuxContainerResources.Builder b, LinuxResources change) {
    change.cpuShares().ifPresent(b::setCpuShares);
    change.cpuQuota().ifPresent(b::setCpuQuota);
    change.cpuPeriod().ifPresent(b::setCpuPeriod);
    change.cpusetCpus().ifPresent(b::setCpusetCpus);
    change.cpusetMems().ifPresent(b::setCpusetMems);
    change.memoryLimit().ifPresent(b::setMemoryLimitInBytes);
    if (!change.unified().isEmpty()) {
      b.putAllUnified(change.unified());
    }
  }

  public static ContainerConfig apply(ContainerConfig config, Adjustment adjustment) {
    if (adjustment.isEmpty()) {
      return config;
    }
    ContainerConfig.Builder b = config.toBuilder();
    applyTo(b, adjustment);
    return b.build();
  }

  /**
   * Applies {@code adjustment} to a config being built, touching only the parts it changes: a
   * cpuset adjustment edits the LinuxContainerResources sub-message only, and the config's other
   * sub-messages (mounts, security context, image) stay shared with the request instead of being
   * rebuilt. This runs on every CreateContainer a policy pins.
   */
  public static void applyTo(ContainerConfig.Builder config, Adjustment adjustment) {
    if (!adjustment.annotations().isEmpty()) {
      config.putAllAnnotations(adjustment.annotations());
    }
    if (!adjustment.resources().isEmpty() || adjustment.oomScoreAdj().isPresent()) {
      LinuxContainerResources.Builder resources = config.getLinuxBuilder().getResourcesBuilder();
      applyTo(resources, adjustment.resources());
      adjustment.oomScoreAdj().ifPresent(resources::setOomScoreAdj);
    }
    if (!adjustment.env().isEmpty()) {
      Map<String, String> remaining = new LinkedHashMap<>(adjustment.env());
      for (int i = 0; i < config.getEnvsCount(); i++) {
        String value = remaining.remove(config.getEnvs(i).getKey());
        if (value != null) {
          config.setEnvs(i, KeyValue.newBuilder().setKey(config.getEnvs(i).getKey()).setValue(ByteString.copyFromUtf8(value)));
        }
      }
      remaining.forEach((key, value) -> config.addEnvs(KeyValue.newBuilder().setKey(key).setValue(ByteString.copyFromUtf8(value))));
    }
    if (!adjustment.mounts().isEmpty()) {
      applyMounts(config, adjustment.mounts());
    }
  }

  /**
   * Each mount replaces the config's own at its container path, or is added after them. CRI mounts
   * are recursive binds already (containerd and CRI-O bind them {@code rbind}), which is what a
   * {@link Mount} is.
   */
  private static void applyMounts(ContainerConfig.Builder config, List<Mount> mounts) {
    Map<String, Mount> remaining = new LinkedHashMap<>();
    mounts.forEach(m -> remaining.put(m.containerPath(), m));
    for (int i = 0; i < config.getMountsCount(); i++) {
      Mount replacing = remaining.remove(config.getMounts(i).getContainerPath());
      if (replacing != null) {
        config.setMounts(i, cri(replacing));
      }
    }
    remaining.values().forEach(m -> config.addMounts(cri(m)));
  }

  private static io.crigate.api.cri.v1.Mount cri(Mount m) {
    return io.crigate.api.cri.v1.Mount.newBuilder().setContainerPath(m.containerPath()).setHostPath(m.hostPath())
        .setReadonly(m.readOnly()).build();
  }

  /** The sandbox's annotations and pod-level resources; env, OOM score and mounts do not apply to a sandbox. */
  public static PodSandboxConfig apply(PodSandboxConfig config, Adjustment adjustment) {
    if (adjustment.isEmpty()) {
      return config;
    }
    PodSandboxConfig.Builder b = config.toBuilder().putAllAnnotations(adjustment.annotations());
    if (!adjustment.resources().isEmpty()) {
      LinuxPodSandboxConfig.Builder linux = b.getLinuxBuilder();
      linux.setResources(apply(linux.getResources(), adjustment.resources()));
    }
    return b.build();
  }

  public static UpdateContainerResourcesRequest update(ContainerUpdate update) {
    return UpdateContainerResourcesRequest.newBuilder().setContainerId(update.containerId())
        .setLinux(apply(LinuxContainerResources.getDefaultInstance(), update.resources())).build();
  }

  private static Map<String, ResourceRequirements> annotated(Map<String, String> annotations) {
    try {
      return ResourceAnnotation.fromAnnotations(annotations);
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument(e.getMessage());
    }
  }
}

package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.KeyValue;
import io.crigate.api.nri.v1alpha1.LinuxCPU;
import io.crigate.api.nri.v1alpha1.LinuxContainer;
import io.crigate.api.nri.v1alpha1.LinuxContainerAdjustment;
import io.crigate.api.nri.v1alpha1.LinuxContainerUpdate;
import io.crigate.api.nri.v1alpha1.LinuxMemory;
import io.crigate.api.nri.v1alpha1.LinuxPodSandbox;
import io.crigate.api.nri.v1alpha1.OptionalInt;
import io.crigate.api.nri.v1alpha1.OptionalInt64;
import io.crigate.api.nri.v1alpha1.OptionalUInt64;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceRequirements;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * NRI's messages to and from the adjustment engine's records: the one place the NRI door
 * translates, in both directions (plugin mode reads NRI, host mode writes it).
 */
final class NriTranslation {

  private NriTranslation() {
  }

  // ---- NRI -> engine ----

  static PodContext pod(PodSandbox p) {
    String parent = p.getLinux().getCgroupParent();
    return new PodContext(p.getId(), p.getName(), p.getNamespace(), p.getUid(),
        QosClass.fromCgroupParent(parent, QosClass.BURSTABLE), p.getLabelsMap(), p.getAnnotationsMap(), parent,
        p.getRuntimeHandler(), ResourceRequirements.NONE, Map.of());
  }

  static ContainerContext container(Container c) {
    Map<String, String> env = new LinkedHashMap<>();
    for (String kv : c.getEnvList()) {
      int eq = kv.indexOf('=');
      env.put(eq < 0 ? kv : kv.substring(0, eq), eq < 0 ? "" : kv.substring(eq + 1));
    }
    return new ContainerContext(new ContainerKey(c.getPodSandboxId(), c.getName(), 0), c.getId(), c.getLabelsMap(),
        c.getAnnotationsMap(), env, ResourceRequirements.NONE, resources(c.getLinux().getResources()));
  }

  static LinuxResources resources(io.crigate.api.nri.v1alpha1.LinuxResources r) {
    LinuxResources.Builder b = LinuxResources.builder();
    LinuxCPU cpu = r.getCpu();
    if (cpu.hasShares()) {
      b.cpuShares(cpu.getShares().getValue());
    }
    if (cpu.hasQuota()) {
      b.cpuQuota(cpu.getQuota().getValue());
    }
    if (cpu.hasPeriod()) {
      b.cpuPeriod(cpu.getPeriod().getValue());
    }
    if (!cpu.getCpus().isEmpty()) {
      b.cpusetCpus(cpu.getCpus());
    }
    if (!cpu.getMems().isEmpty()) {
      b.cpusetMems(cpu.getMems());
    }
    if (r.getMemory().hasLimit()) {
      b.memoryLimit(r.getMemory().getLimit().getValue());
    }
    r.getUnifiedMap().forEach(b::unified);
    return b.build();
  }

  /** The mounts that do not map to the engine's are left out ({@link NriMounts#read} says which). */
  static Adjustment adjustment(ContainerAdjustment a) {
    Adjustment.Builder b = Adjustment.builder().resources(resources(a.getLinux().getResources()));
    if (a.getLinux().hasOomScoreAdj()) {
      b.oomScoreAdj(a.getLinux().getOomScoreAdj().getValue());
    }
    a.getEnvList().forEach(kv -> b.env(kv.getKey(), kv.getValue()));
    a.getAnnotationsMap().forEach(b::annotation);
    NriMounts.read(a.getMountsList()).mounts().forEach(b::mount);
    return b.build();
  }

  static ContainerUpdate update(io.crigate.api.nri.v1alpha1.ContainerUpdate u) {
    return new ContainerUpdate(u.getContainerId(), resources(u.getLinux().getResources()), u.getIgnoreFailure());
  }

  // ---- engine -> NRI ----

  static PodSandbox pod(PodContext p) {
    return PodSandbox.newBuilder().setId(p.id()).setName(p.name()).setNamespace(p.namespace()).setUid(p.uid())
        .putAllLabels(p.labels()).putAllAnnotations(p.annotations()).setRuntimeHandler(p.runtimeHandler())
        .setLinux(LinuxPodSandbox.newBuilder().setCgroupParent(p.cgroupParent())).build();
  }

  static Container container(ContainerContext c) {
    Container.Builder b = Container.newBuilder().setId(c.id()).setPodSandboxId(c.podId()).setName(c.name())
        .putAllLabels(c.labels()).putAllAnnotations(c.annotations())
        .setLinux(LinuxContainer.newBuilder().setResources(resources(c.resources())));
    c.env().forEach((k, v) -> b.addEnv(k + "=" + v));
    return b.build();
  }

  static io.crigate.api.nri.v1alpha1.LinuxResources resources(LinuxResources r) {
    LinuxCPU.Builder cpu = LinuxCPU.newBuilder();
    r.cpuShares().ifPresent(v -> cpu.setShares(OptionalUInt64.newBuilder().setValue(v)));
    r.cpuQuota().ifPresent(v -> cpu.setQuota(OptionalInt64.newBuilder().setValue(v)));
    r.cpuPeriod().ifPresent(v -> cpu.setPeriod(OptionalUInt64.newBuilder().setValue(v)));
    r.cpusetCpus().ifPresent(cpu::setCpus);
    r.cpusetMems().ifPresent(cpu::setMems);
    io.crigate.api.nri.v1alpha1.LinuxResources.Builder b = io.crigate.api.nri.v1alpha1.LinuxResources.newBuilder();
    if (!cpu.build().equals(LinuxCPU.getDefaultInstance())) {
      b.setCpu(cpu);
    }
    r.memoryLimit().ifPresent(v -> b.setMemory(LinuxMemory.newBuilder().setLimit(OptionalInt64.newBuilder().setValue(v))));
    b.putAllUnified(r.unified());
    return b.build();
  }

  static ContainerAdjustment adjustment(Adjustment a) {
    ContainerAdjustment.Builder b = ContainerAdjustment.newBuilder().putAllAnnotations(a.annotations());
    a.env().forEach((k, v) -> b.addEnv(KeyValue.newBuilder().setKey(k).setValue(v)));
    a.mounts().forEach(m -> b.addMounts(NriMounts.nri(m)));
    LinuxContainerAdjustment.Builder linux = LinuxContainerAdjustment.newBuilder();
    if (!a.resources().isEmpty()) {
      linux.setResources(resources(a.resources()));
    }
    a.oomScoreAdj().ifPresent(v -> linux.setOomScoreAdj(OptionalInt.newBuilder().setValue(v)));
    if (!linux.build().equals(LinuxContainerAdjustment.getDefaultInstance())) {
      b.setLinux(linux);
    }
    return b.build();
  }

  static io.crigate.api.nri.v1alpha1.ContainerUpdate update(ContainerUpdate u) {
    return io.crigate.api.nri.v1alpha1.ContainerUpdate.newBuilder().setContainerId(u.containerId())
        .setLinux(LinuxContainerUpdate.newBuilder().setResources(resources(u.resources())))
        .setIgnoreFailure(u.ignoreFailure()).build();
  }
}

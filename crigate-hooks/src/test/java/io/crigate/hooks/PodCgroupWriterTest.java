package io.crigate.hooks;

import static io.crigate.hooks.Pods.pod;
import static io.crigate.hooks.Pods.qos;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Proxy and NRI mode put PreRunPodSandbox's pod-level values into the pod's cgroup themselves. */
class PodCgroupWriterTest {

  private static final String BATCH_SPEC = """
      {"containers":{"c":{"requests":{"kubernetes.io/batch-cpu":"500","kubernetes.io/batch-memory":"128Mi"},\
      "limits":{"kubernetes.io/batch-cpu":"1000","kubernetes.io/batch-memory":"256Mi"}}}}""";

  @TempDir Path root;

  private PodContext bePod(String cgroupParent) {
    PodContext p = pod(qos("BE"), Map.of(KoordinatorKeys.EXTENDED_RESOURCE_SPEC, BATCH_SPEC));
    return new PodContext(p.id(), p.name(), p.namespace(), p.uid(), p.qosClass(), p.labels(), p.annotations(),
        cgroupParent, p.runtimeHandler(), p.resources(), p.containerResources());
  }

  private KoordinatorHooks hooksWritingTo(Path cgroupRoot) {
    return new KoordinatorHooks(HookSettings.parse(null).chain(),
        Optional.of(new PodCgroupWriter(HostCgroups.at(cgroupRoot, root.resolve("proc")))));
  }

  @Test
  void runPodSandboxWritesTheBatchPodsValuesIntoItsCgroupParent() throws IOException {
    Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu memory");
    Path podCgroup = Files.createDirectories(root.resolve("kubepods/besteffort/pod1"));

    try (KoordinatorHooks hooks = hooksWritingTo(root)) {
      hooks.runPodSandbox(bePod("/kubepods/besteffort/pod1"));
    }

    // shares 512 → weight 20; a 1-CPU quota; the 256Mi batch memory limit
    assertThat(Files.readString(podCgroup.resolve("cpu.weight"))).isEqualTo("20");
    assertThat(Files.readString(podCgroup.resolve("cpu.max"))).isEqualTo("100000 100000");
    assertThat(Files.readString(podCgroup.resolve("memory.max"))).isEqualTo(Long.toString(256L << 20));
  }

  @Test
  void withoutAWriterOrACgroupParentNothingIsWrittenAndTheAnswerIsTheSame() throws IOException {
    Files.writeString(root.resolve("cgroup.controllers"), "cpuset cpu memory");
    Path podCgroup = Files.createDirectories(root.resolve("pod1"));

    LinuxResources withWriter;
    try (KoordinatorHooks hooks = hooksWritingTo(root)) {
      withWriter = hooks.runPodSandbox(bePod("")).adjustment().resources();
    }
    LinuxResources without;
    try (KoordinatorHooks hooks = new KoordinatorHooks(HookSettings.parse(null).chain())) {
      without = hooks.runPodSandbox(bePod("/pod1")).adjustment().resources();
    }

    assertThat(withWriter).isEqualTo(without).isNotEqualTo(LinuxResources.NONE);
    try (var files = Files.list(podCgroup)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aCgroupParentThatClimbsOutOfTheHierarchyIsNotWritten() throws IOException {
    Path cgroups = Files.createDirectories(root.resolve("cgroup"));
    Files.writeString(cgroups.resolve("cgroup.controllers"), "cpuset cpu memory");
    Path outside = Files.createDirectories(root.resolve("outside"));

    try (KoordinatorHooks hooks = hooksWritingTo(cgroups)) {
      assertThat(hooks.runPodSandbox(bePod("/../outside")).adjustment().resources().cpuShares()).hasValue(512);
    }

    try (var files = Files.list(outside)) {
      assertThat(files).isEmpty();
    }
  }

  @Test
  void aPodCgroupThatCannotBeWrittenLeavesTheSandboxsAnswerStanding() {
    // no such cgroup: the pod is not on this host's hierarchy
    try (KoordinatorHooks hooks = hooksWritingTo(root)) {
      assertThat(hooks.runPodSandbox(bePod("/kubepods/gone")).adjustment().resources().cpuShares()).hasValue(512);
    }
  }
}

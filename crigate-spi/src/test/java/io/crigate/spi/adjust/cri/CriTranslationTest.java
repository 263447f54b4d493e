package io.crigate.spi.adjust.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerMetadata;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.LinuxContainerConfig;
import io.crigate.api.cri.v1.LinuxContainerResources;
import io.crigate.api.cri.v1.LinuxPodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxMetadata;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.Mount;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceAnnotation;
import io.crigate.spi.adjust.ResourceRequirements;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CriTranslationTest {

  static final LinuxContainerResources KUBELET_1500M = LinuxContainerResources.newBuilder()
      .setCpuShares(1536).setCpuQuota(150_000).setCpuPeriod(100_000).setMemoryLimitInBytes(1 << 30).build();

  @Test
  void requirementsAreRecoveredFromKubeletValues() {
    // 1500m: shares 1500*1024/1000 = 1536, quota 1500*100000/1000 = 150000
    assertThat(CriTranslation.requirements(KUBELET_1500M)).isEqualTo(new ResourceRequirements(1500, 1500, 0, 1 << 30));
    // 100m: shares 102 -> (102000+512)/1024 = 100
    assertThat(CriTranslation.requirements(LinuxContainerResources.newBuilder().setCpuShares(102).build()).cpuRequestMilli())
        .isEqualTo(100);
  }

  @Test
  void theWebhookAnnotationWinsOverCriValues() {
    String annotation = ResourceAnnotation.format(Map.of("app", Map.of("requests", Map.of("cpu", "2", "memory", "64Mi"),
        "limits", Map.of("cpu", "2", "memory", "64Mi"))));
    PodSandboxConfig sandbox = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName("p").setNamespace("ns").setUid("u"))
        .putAnnotations(ResourceAnnotation.KEY, annotation)
        .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent("/kubepods/burstable/podu")).build();
    PodContext pod = CriTranslation.pod("s1", sandbox, "");
    ContainerContext container = CriTranslation.container(pod, "", config());

    assertThat(pod.qosClass()).isEqualTo(QosClass.GUARANTEED);
    assertThat(container.requirements()).isEqualTo(new ResourceRequirements(2000, 2000, 64 << 20, 64 << 20));
    assertThat(container.key().toString()).isEqualTo("s1/app/3");
    assertThat(container.env()).containsEntry("A", "1");
  }

  @Test
  void criResourceManagersWebhookAnnotationIsReadWithItsInitContainers() {
    // what cri-resmgr-webhook patches in: Go's JSON of the pod's ResourceRequirements, init containers apart
    String annotation = "{\"initContainers\":{\"init\":{\"requests\":{\"cpu\":\"100m\"}}},"
        + "\"containers\":{\"app\":{\"limits\":{\"cpu\":\"2\",\"memory\":\"64Mi\"},"
        + "\"requests\":{\"cpu\":\"2\",\"memory\":\"64Mi\"}}}}";
    PodSandboxConfig sandbox = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName("p").setNamespace("ns").setUid("u"))
        .putAnnotations("intel.com/resources", annotation)
        .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent("/kubepods/burstable/podu")).build();
    PodContext pod = CriTranslation.pod("s1", sandbox, "");

    assertThat(CriTranslation.container(pod, "", config()).requirements())
        .isEqualTo(new ResourceRequirements(2000, 2000, 64 << 20, 64 << 20));
    assertThat(pod.containerResources()).containsKeys("init", "app");
  }

  @Test
  void crigatesWebhookAnnotationWinsOverCriResourceManagersAndABadOneIsNamed() {
    String ours = ResourceAnnotation.format(Map.of("app", Map.of("requests", Map.of("cpu", "1"))));
    String theirs = "{\"containers\":{\"app\":{\"requests\":{\"cpu\":\"3\"}}}}";
    Map<String, ResourceRequirements> both = ResourceAnnotation.fromAnnotations(
        Map.of(ResourceAnnotation.KEY, ours, ResourceAnnotation.CRI_RM_KEY, theirs));

    assertThat(both.get("app").cpuRequestMilli()).isEqualTo(1000);
    PodSandboxConfig bad = PodSandboxConfig.newBuilder().putAnnotations("intel.com/resources",
        "{\"containers\":{\"app\":{\"requests\":{\"cpu\":\"lots\"}}}}").build();
    assertThatThrownBy(() -> CriTranslation.pod("s1", bad, ""))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageStartingWith("annotation intel.com/resources: containers.app.requests.cpu:");
  }

  @Test
  void withoutAnnotationTheCgroupParentGivesTheClass() {
    PodSandboxConfig sandbox = PodSandboxConfig.newBuilder()
        .setLinux(LinuxPodSandboxConfig.newBuilder().setCgroupParent("kubepods-besteffort-podu.slice")).build();
    assertThat(CriTranslation.pod("", sandbox, "").qosClass()).isEqualTo(QosClass.BEST_EFFORT);
  }

  @Test
  void adjustmentIsAppliedToTheContainerConfig() {
    Adjustment adjustment = Adjustment.builder().env("A", "2").env("B", "3").annotation("k", "v").oomScoreAdj(-997)
        .resources(LinuxResources.builder().cpusetCpus("2-3").cpusetMems("0").build()).build();

    ContainerConfig adjusted = CriTranslation.apply(config(), adjustment);

    LinuxContainerResources r = adjusted.getLinux().getResources();
    assertThat(r.getCpusetCpus()).isEqualTo("2-3");
    assertThat(r.getCpusetMems()).isEqualTo("0");
    assertThat(r.getOomScoreAdj()).isEqualTo(-997);
    assertThat(r.getCpuShares()).isEqualTo(1536); // untouched
    assertThat(adjusted.getEnvsList()).extracting(KeyValue::getKey).containsExactly("A", "B");
    assertThat(adjusted.getEnvs(0).getValue().toStringUtf8()).isEqualTo("2");
    assertThat(adjusted.getAnnotationsMap()).containsEntry("k", "v");
  }

  @Test
  void anAdjustmentTouchesOnlyThePartsItChanges() {
    ContainerConfig withoutLinux = ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("app")).build();

    ContainerConfig annotated = CriTranslation.apply(withoutLinux, Adjustment.builder().annotation("k", "v").build());
    ContainerConfig pinned = CriTranslation.apply(config(), Adjustment.of(LinuxResources.builder().cpusetCpus("1").build()));

    // An annotation gives a config without a Linux section none (an empty one would still be sent) ...
    assertThat(annotated.hasLinux()).isFalse();
    assertThat(annotated.getAnnotationsMap()).containsExactly(java.util.Map.entry("k", "v"));
    // ... and a cpuset changes the cpuset alone.
    assertThat(pinned.getLinux().getResources()).isEqualTo(KUBELET_1500M.toBuilder().setCpusetCpus("1").build());
    assertThat(pinned.getEnvsList()).isEqualTo(config().getEnvsList());
  }

  @Test
  void mountsReplaceTheConfigsOwnAtTheirContainerPathOrAreAddedAfterThem() {
    io.crigate.api.cri.v1.Mount kubeletsLock = io.crigate.api.cri.v1.Mount.newBuilder().setContainerPath("/tmp/vgpulock")
        .setHostPath("/var/lib/kubelet/pods/u/volumes/lock").setSelinuxRelabel(true).build();
    io.crigate.api.cri.v1.Mount token = io.crigate.api.cri.v1.Mount.newBuilder()
        .setContainerPath("/var/run/secrets/token").setHostPath("/var/lib/kubelet/token").setReadonly(true).build();
    ContainerConfig withMounts = config().toBuilder().addMounts(kubeletsLock).addMounts(token).build();

    ContainerConfig adjusted = CriTranslation.apply(withMounts, Adjustment.builder()
        .mount(Mount.samePath("/usr/local/vgpu/libvgpu.so")).mount(Mount.samePath("/tmp/vgpulock"))
        .mount(new Mount("/etc/hami", "/opt/hami/etc", true)).build());

    assertThat(adjusted.getMountsList()).containsExactly(
        io.crigate.api.cri.v1.Mount.newBuilder().setContainerPath("/tmp/vgpulock").setHostPath("/tmp/vgpulock").build(),
        token,
        io.crigate.api.cri.v1.Mount.newBuilder().setContainerPath("/etc/hami").setHostPath("/opt/hami/etc").setReadonly(true).build(),
        io.crigate.api.cri.v1.Mount.newBuilder().setContainerPath("/usr/local/vgpu/libvgpu.so")
            .setHostPath("/usr/local/vgpu/libvgpu.so").build());
    assertThat(adjusted.getLinux()).isEqualTo(config().getLinux());
  }

  @Test
  void aSandboxTakesNoMounts() {
    PodSandboxConfig sandbox = PodSandboxConfig.newBuilder().setMetadata(PodSandboxMetadata.newBuilder().setName("p")).build();
    assertThat(CriTranslation.apply(sandbox, Adjustment.builder().mount(Mount.samePath("/tmp/vgpulock")).build()))
        .isEqualTo(sandbox);
  }

  @Test
  void resourcesRoundTripWithZeroAsUnset() {
    assertThat(CriTranslation.resources(KUBELET_1500M).cpusetCpus()).isEmpty();
    assertThat(CriTranslation.apply(LinuxContainerResources.getDefaultInstance(), CriTranslation.resources(KUBELET_1500M)))
        .isEqualTo(KUBELET_1500M);
  }

  private static ContainerConfig config() {
    return ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("app").setAttempt(3))
        .addEnvs(KeyValue.newBuilder().setKey("A").setValue(ByteString.copyFromUtf8("1")))
        .setLinux(LinuxContainerConfig.newBuilder().setResources(KUBELET_1500M)).build();
  }
}

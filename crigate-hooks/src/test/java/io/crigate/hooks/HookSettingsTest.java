package io.crigate.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HookSettingsTest {

  private static JsonNode json(String text) throws Exception {
    return new ObjectMapper().readTree(text);
  }

  @Test
  void absentSectionIsProxyModeWithEveryBuiltInInDefaultOrder() {
    HookSettings settings = HookSettings.parse(null);
    assertThat(settings.mode()).isEqualTo(HookMode.PROXY);
    assertThat(settings.resync()).isEqualTo(Duration.ofSeconds(10));
    assertThat(settings.chain().registrations()).extracting(r -> r.hook().name())
        .containsExactly("QoSClass", "BatchResource", "CPUSetAllocator", "GPUEnvInject");
    assertThat(settings.chain().registrations()).extracting(HookRegistration::failurePolicy).containsExactly(
        FailurePolicy.FAIL_OPEN, FailurePolicy.FAIL_OPEN, FailurePolicy.FAIL_CLOSED, FailurePolicy.FAIL_CLOSED);
  }

  @Test
  void orderPolicyEnabledAndClassValuesComeFromTheSection() throws Exception {
    HookSettings settings = HookSettings.parse(json("""
        {"mode":"standalone","resync":"500ms",
         "GPUEnvInject":{"order":1,"failurePolicy":"Ignore"},
         "BatchResource":{"enabled":false},
         "QoSClass":{"classes":{"BE":{"cpuShares":4,"cpuset":"1"}}}}"""));

    assertThat(settings.mode()).isEqualTo(HookMode.STANDALONE);
    assertThat(settings.resync()).isEqualTo(Duration.ofMillis(500));
    assertThat(settings.chain().registrations()).extracting(r -> r.hook().name())
        .containsExactly("GPUEnvInject", "QoSClass", "CPUSetAllocator");
    assertThat(settings.chain().registrations().getFirst().failurePolicy()).isEqualTo(FailurePolicy.FAIL_OPEN);
    // BE keeps its default oomScoreAdj 1000 and takes the configured shares and pool
    assertThat(settings.chain().runContainer(Stage.PRE_CREATE_CONTAINER, Pods.pod(Pods.qos("BE"), Map.of()), Pods.container("c")))
        .isEqualTo(BuiltInHooksTest.adj(4L, null, null, "1", 1000L));
  }

  @Test
  void settingOneValueOfAClassWhoseOtherDefaultsAreUnsetKeepsThemUnset() throws Exception {
    HookSettings settings = HookSettings.parse(json("{\"QoSClass\":{\"classes\":{\"LSR\":{\"oomScoreAdj\":100}}}}"));

    assertThat(settings.chain().runContainer(Stage.PRE_CREATE_CONTAINER, Pods.pod(Pods.qos("LSR"), Map.of()), Pods.container("c")))
        .isEqualTo(BuiltInHooksTest.adj(null, null, null, null, 100L));
  }

  @ParameterizedTest(name = "{1}")
  @CsvSource(delimiter = '|', value = {
      "{\"mode\":\"sidecar\"}|hooks.mode 'sidecar' is not one of proxy, nri, standalone",
      "{\"Unknown\":{}}|hooks.Unknown is not a setting or a hook",
      "{\"QoSClass\":{\"failurePolicy\":\"maybe\"}}|hooks.QoSClass.failurePolicy: unknown failurePolicy 'maybe'",
      "{\"QoSClass\":{\"classes\":{\"GOLD\":{}}}}|hooks.QoSClass.classes: unknown class 'GOLD'",
      "{\"QoSClass\":{\"classes\":{\"BE\":{\"oomScoreAdj\":5000}}}}|hooks.QoSClass.classes.BE.oomScoreAdj must be a whole number in [-1000, 1000]",
      "{\"QoSClass\":{\"classes\":{\"BE\":{\"cpuset\":\"a-b\"}}}}|hooks.QoSClass.classes.BE.cpuset must be a Linux CPU list",
      "{\"resync\":\"soon\"}|hooks.resync 'soon' is not a positive duration",
      "{\"GPUEnvInject\":{\"hamiCoreLibraryPth\":\"/x.so\"}}|hooks.GPUEnvInject.hamiCoreLibraryPth is not a setting of hook GPUEnvInject; its settings are [enabled, failurePolicy, hamiCoreLibraryPath, order]",
      "{\"BatchResource\":{\"cfsquota\":false}}|hooks.BatchResource.cfsquota is not a setting of hook BatchResource",
      "{\"CPUSetAllocator\":{\"cpus\":\"0\"}}|hooks.CPUSetAllocator.cpus is not a setting of hook CPUSetAllocator",
      "{\"QoSClass\":{\"classes\":{\"BE\":{\"cpuWeight\":4}}}}|hooks.QoSClass.classes.BE.cpuWeight is not a setting of class BE",
      "{\"GPUEnvInject\":true}|hooks.GPUEnvInject must be a mapping",
      "{\"GPUEnvInject\":{\"hamiCoreLibraryPath\":\"lib/libvgpu.so\"}}|hooks.GPUEnvInject.hamiCoreLibraryPath must be an absolute file path",
      "[]|hooks must be a mapping",
  })
  void badSectionIsAnInvalidArgumentNamingTheField(String section, String message) {
    assertThatThrownBy(() -> HookSettings.parse(json(section)))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(message);
  }

  @Test
  void theHamiCoreLibraryPathComesFromTheGpuSectionAndDefaultsToKoordletsDefault() throws Exception {
    Map<String, String> share = Map.of(KoordinatorKeys.DEVICE_ALLOCATED, "{\"gpu\":[{\"minor\":0,\"resources\":"
        + "{\"koordinator.sh/gpu-memory-ratio\":\"25\",\"koordinator.sh/gpu-memory\":\"4Gi\"}}]}");
    var pod = Pods.pod(Map.of(KoordinatorKeys.GPU_ISOLATION_PROVIDER_LABEL, "HAMi-core"), share);

    var configured = HookSettings.parse(json("{\"GPUEnvInject\":{\"hamiCoreLibraryPath\":\"/opt/hami/libvgpu.so\"}}"))
        .chain().runContainer(Stage.PRE_CREATE_CONTAINER, pod, Pods.container("c"));
    var defaulted = HookSettings.parse(json("{}")).chain().runContainer(Stage.PRE_CREATE_CONTAINER, pod, Pods.container("c"));

    assertThat(configured.env()).containsEntry("LD_PRELOAD", "/opt/hami/libvgpu.so");
    assertThat(configured.mounts()).extracting(m -> m.containerPath()).containsExactly("/opt/hami/libvgpu.so", "/tmp/vgpulock");
    assertThat(defaulted.env()).containsEntry("LD_PRELOAD", "/usr/local/vgpu/libvgpu.so");
    assertThat(defaulted.mounts()).extracting(m -> m.hostPath()).containsExactly("/tmp/vgpulock", "/usr/local/vgpu/libvgpu.so");
  }

  @Test
  void koordinatorStageNamesParse() {
    assertThat(Stage.parse("PreRemoveRunPodSandbox")).isEqualTo(Stage.PRE_REMOVE_POD_SANDBOX);
    assertThat(Stage.parse("PreCreateContainer")).isEqualTo(Stage.PRE_CREATE_CONTAINER);
    assertThatThrownBy(() -> Stage.parse("PreBoot")).hasMessageContaining("unknown hook stage 'PreBoot'");
  }
}

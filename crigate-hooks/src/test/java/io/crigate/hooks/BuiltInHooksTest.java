package io.crigate.hooks;

import static io.crigate.hooks.Pods.pod;
import static io.crigate.hooks.Pods.qos;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.Mount;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class BuiltInHooksTest {

  private static final String SPEC = KoordinatorKeys.EXTENDED_RESOURCE_SPEC;
  private static final String STATUS = KoordinatorKeys.RESOURCE_STATUS;
  private static final String DEVICES = KoordinatorKeys.DEVICE_ALLOCATED;
  private static final Hook QOS = QosClassHook.fromSettings(JsonNodeFactory.instance.objectNode());
  private static final Hook BATCH = new BatchResourceHook(true);
  private static final Hook CPUSET = new CpusetAllocatorHook();
  private static final Hook GPU = new GpuAllocationHook(new HamiCore("/opt/hami/libvgpu.so"));

  record Case(String name, Hook hook, Map<String, String> labels, Map<String, String> annotations, Adjustment expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> containerCases() {
    String batchSpec = """
        {"containers":{"c":{"requests":{"kubernetes.io/batch-cpu":"1500","kubernetes.io/batch-memory":"1Gi"},
                            "limits":{"kubernetes.io/batch-cpu":"2000","kubernetes.io/batch-memory":"2Gi"}}}}""";
    return Stream.of(
        new Case("qos: no label, nothing", QOS, Map.of(), Map.of(), Adjustment.NONE),
        // defaults: BE gets the smallest weight (2) and is killed first (1000)
        new Case("qos: BE", QOS, qos("BE"), Map.of(), adj(2L, null, null, null, 1000L)),
        new Case("qos: LSR keeps memory like Guaranteed, one below the kubelet's -997", QOS, qos("LSR"), Map.of(),
            adj(null, null, null, null, -998L)),
        new Case("qos: LS keeps the kubelet's values", QOS, qos("LS"), Map.of(), Adjustment.NONE),
        // 1500 milli * 1024 / 1000 = 1536 shares; 2000 milli * 100000 / 1000 = 200000 us; 2Gi = 2147483648
        new Case("batch: BE container with requests and limits", BATCH, qos("BE"), Map.of(SPEC, batchSpec),
            adj(1536L, 200000L, 2147483648L, null, null)),
        // 1 milli * 1024 / 1000 = 1 -> min 2 shares; 5 milli * 100 = 500 us -> min 1000 us; no memory limit: untouched
        new Case("batch: tiny values are clamped to the cgroup minimums", BATCH, qos("BE"), Map.of(SPEC,
            "{\"containers\":{\"c\":{\"requests\":{\"kubernetes.io/batch-cpu\":\"1\"},\"limits\":{\"kubernetes.io/batch-cpu\":\"5\"}}}}"),
            adj(2L, 1000L, null, null, null)),
        new Case("batch: no limits means unlimited quota", BATCH, qos("BE"), Map.of(SPEC,
            "{\"containers\":{\"c\":{\"requests\":{\"kubernetes.io/batch-cpu\":\"500\"}}}}"),
            // 500 * 1024 / 1000 = 512
            adj(512L, -1L, null, null, null)),
        new Case("batch: LS pod is not batch", BATCH, qos("LS"), Map.of(SPEC, batchSpec), Adjustment.NONE),
        new Case("batch: container not in the spec", BATCH, qos("BE"), Map.of(SPEC, "{\"containers\":{\"other\":{}}}"),
            Adjustment.NONE),
        new Case("cpuset: pinned pod gets its CPUs and no quota", CPUSET, qos("LSR"), Map.of(STATUS, "{\"cpuset\":\"0-1\"}"),
            adj(null, -1L, null, "0-1", null)),
        new Case("cpuset: status without cpuset", CPUSET, qos("LS"), Map.of(STATUS, "{\"cpuSharedPools\":[]}"), Adjustment.NONE),
        new Case("gpu: minors become NVIDIA_VISIBLE_DEVICES", GPU, Map.of(), Map.of(DEVICES,
            "{\"gpu\":[{\"minor\":0,\"resources\":{}},{\"minor\":3,\"resources\":{}}]}"),
            env(Map.of("NVIDIA_VISIBLE_DEVICES", "0,3"))),
        // half a GPU under HAMi-core: 8Gi = 8589934592 bytes, 50 % of the SMs
        new Case("gpu: HAMi-core share adds its limits", GPU, Map.of(KoordinatorKeys.GPU_ISOLATION_PROVIDER_LABEL, "HAMi-core"),
            Map.of(DEVICES, "{\"gpu\":[{\"minor\":1,\"resources\":{\"koordinator.sh/gpu-memory-ratio\":\"50\","
                + "\"koordinator.sh/gpu-memory\":\"8Gi\",\"koordinator.sh/gpu-core\":\"50\"}}]}"),
            Adjustment.builder().env("NVIDIA_VISIBLE_DEVICES", "1").env("CUDA_DEVICE_MEMORY_LIMIT", "8589934592")
                .env("CUDA_DEVICE_SM_LIMIT", "50").env("LD_PRELOAD", "/opt/hami/libvgpu.so")
                .mount(new Mount("/opt/hami/libvgpu.so", "/opt/hami/libvgpu.so", false))
                .mount(new Mount("/tmp/vgpulock", "/tmp/vgpulock", false)).build()),
        // a whole GPU (ratio 100, a number here) needs neither limits nor the library
        new Case("gpu: HAMi-core with a whole GPU adds nothing of HAMi-core's", GPU,
            Map.of(KoordinatorKeys.GPU_ISOLATION_PROVIDER_LABEL, "HAMi-core"),
            Map.of(DEVICES, "{\"gpu\":[{\"minor\":2,\"resources\":{\"koordinator.sh/gpu-memory-ratio\":100,"
                + "\"koordinator.sh/gpu-memory\":\"16Gi\"}}]}"),
            env(Map.of("NVIDIA_VISIBLE_DEVICES", "2"))),
        // without the label a share is the device plugin's business
        new Case("gpu: a share without the HAMi-core label gets only its devices", GPU, Map.of(),
            Map.of(DEVICES, "{\"gpu\":[{\"minor\":1,\"resources\":{\"koordinator.sh/gpu-memory-ratio\":\"50\","
                + "\"koordinator.sh/gpu-memory\":\"8Gi\"}}]}"),
            env(Map.of("NVIDIA_VISIBLE_DEVICES", "1"))),
        new Case("gpu: no allocation", GPU, Map.of(), Map.of(), Adjustment.NONE));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("containerCases")
  void containerStage(Case c) {
    assertThat(c.hook().onContainer(Stage.PRE_CREATE_CONTAINER, pod(c.labels(), c.annotations()), Pods.container("c")))
        .isEqualTo(c.expected());
  }

  static Stream<Case> podCases() {
    return Stream.of(
        // requests 1000 + 500 = 1500 milli -> 1536 shares; limits 1000 + 1000 milli -> 200000 us; 1Gi + 1Gi
        new Case("batch: pod sums its containers", BATCH, qos("BE"), Map.of(SPEC, """
            {"containers":{
              "a":{"requests":{"kubernetes.io/batch-cpu":"1000"},"limits":{"kubernetes.io/batch-cpu":"1000","kubernetes.io/batch-memory":"1Gi"}},
              "b":{"requests":{"kubernetes.io/batch-cpu":"500"},"limits":{"kubernetes.io/batch-cpu":"1000","kubernetes.io/batch-memory":"1Gi"}}}}"""),
            adj(1536L, 200000L, 2147483648L, null, null)),
        // b has no limits: the pod cgroup must not cap a container that may use all
        new Case("batch: one unlimited container leaves the pod unlimited", BATCH, qos("BE"), Map.of(SPEC, """
            {"containers":{
              "a":{"requests":{"kubernetes.io/batch-cpu":"1000"},"limits":{"kubernetes.io/batch-cpu":"1000","kubernetes.io/batch-memory":"1Gi"}},
              "b":{"requests":{"kubernetes.io/batch-cpu":"1000"}}}}"""),
            adj(2048L, -1L, null, null, null)),
        new Case("cpuset: pinned pod has no pod quota", CPUSET, qos("LSE"), Map.of(STATUS, "{\"cpuset\":\"2\"}"),
            adj(null, -1L, null, null, null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("podCases")
  void podStage(Case c) {
    assertThat(c.hook().onPod(Stage.PRE_RUN_POD_SANDBOX, pod(c.labels(), c.annotations()))).isEqualTo(c.expected());
  }

  /** An adjustment with the given fields; {@code null} = not set. */
  static Adjustment adj(Long shares, Long quota, Long memory, String cpuset, Long oomScoreAdj) {
    LinuxResources.Builder r = LinuxResources.builder();
    if (shares != null) {
      r.cpuShares(shares);
    }
    if (quota != null) {
      r.cpuQuota(quota);
    }
    if (memory != null) {
      r.memoryLimit(memory);
    }
    if (cpuset != null) {
      r.cpusetCpus(cpuset);
    }
    Adjustment.Builder a = Adjustment.builder().resources(r.build());
    if (oomScoreAdj != null) {
      a.oomScoreAdj(oomScoreAdj);
    }
    return a.build();
  }

  static Adjustment env(Map<String, String> env) {
    Adjustment.Builder a = Adjustment.builder();
    env.forEach(a::env);
    return a.build();
  }

  record Bad(String name, Hook hook, Map<String, String> labels, Map<String, String> annotations, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Bad> badInput() {
    return Stream.of(
        new Bad("unknown QoS class", QOS, qos("GOLD"), Map.of(), "label koordinator.sh/qosClass=GOLD is not one of"),
        new Bad("spec not JSON", BATCH, qos("BE"), Map.of(SPEC, "{nope"), "annotation " + SPEC + " is not valid JSON"),
        new Bad("spec a list", BATCH, qos("BE"), Map.of(SPEC, "[]"), "annotation " + SPEC + " must be a JSON object"),
        new Bad("batch-cpu not a quantity", BATCH, qos("BE"),
            Map.of(SPEC, "{\"containers\":{\"c\":{\"requests\":{\"kubernetes.io/batch-cpu\":\"lots\"}}}}"),
            "containers.c.requests.kubernetes.io/batch-cpu: 'lots' is not a Kubernetes quantity"),
        new Bad("cpuset not a CPU list", CPUSET, qos("LSR"), Map.of(STATUS, "{\"cpuset\":\"zero\"}"),
            "field cpuset must be a Linux CPU list"),
        new Bad("gpu minor missing", GPU, Map.of(), Map.of(DEVICES, "{\"gpu\":[{\"resources\":{}}]}"),
            "non-negative integer minor"),
        new Bad("HAMi-core share without memory", GPU, Map.of(KoordinatorKeys.GPU_ISOLATION_PROVIDER_LABEL, "HAMi-core"),
            Map.of(DEVICES, "{\"gpu\":[{\"minor\":0,\"resources\":{\"koordinator.sh/gpu-memory-ratio\":\"50\"}}]}"),
            "lack koordinator.sh/gpu-memory"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInput")
  void badAnnotationIsAnInvalidArgumentNamingIt(Bad b) {
    assertThatThrownBy(() -> b.hook().onContainer(Stage.PRE_CREATE_CONTAINER, pod(b.labels(), b.annotations()), Pods.container("c")))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(b.message());
  }
}

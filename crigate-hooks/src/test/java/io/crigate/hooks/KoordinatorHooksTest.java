package io.crigate.hooks;

import static io.crigate.hooks.BuiltInHooksTest.adj;
import static io.crigate.hooks.Pods.container;
import static io.crigate.hooks.Pods.pod;
import static io.crigate.hooks.Pods.qos;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginChain;
import io.crigate.spi.adjust.PodContext;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The hook engine as a plugin of the adjustment engine: events reach the right stage, config swaps live. */
class KoordinatorHooksTest {

  private static final String BATCH_SPEC = """
      {"containers":{"c":{"requests":{"kubernetes.io/batch-cpu":"500"},"limits":{"kubernetes.io/batch-cpu":"1000"}}}}""";

  private static HookChain chain(String section) throws Exception {
    return HookSettings.parse(new ObjectMapper().readTree(section)).chain();
  }

  @Test
  void createContainerThroughTheEngineRunsTheBuiltInsInOrder() throws Exception {
    KoordinatorHooks hooks = new KoordinatorHooks(chain("{}"));
    PodContext be = pod(qos("BE"), Map.of(KoordinatorKeys.EXTENDED_RESOURCE_SPEC, BATCH_SPEC,
        KoordinatorKeys.DEVICE_ALLOCATED, "{\"gpu\":[{\"minor\":2}]}"));
    try (PluginChain engine = new PluginChain(List.of(hooks))) {
      Adjustment a = engine.createContainer(be, container("c")).adjustment();
      // QoSClass sets shares 2 and oom 1000; BatchResource (later) replaces shares: 500 * 1024 / 1000 = 512,
      // and sets quota 1000 milli * 100 = 100000 us; GPUEnvInject adds the device
      assertThat(a).isEqualTo(Adjustment.builder().resources(adj(512L, 100000L, null, null, null).resources())
          .oomScoreAdj(1000L).env("NVIDIA_VISIBLE_DEVICES", "2").build());
      // pod level: only BatchResource answers at PreRunPodSandbox
      assertThat(engine.runPodSandbox(be).adjustment().resources())
          .isEqualTo(LinuxResources.builder().cpuShares(512).cpuQuota(100000).build());
      // no hook listens at PostStopContainer with the built-ins
      assertThat(engine.stopContainer(be, container("c")).isEmpty()).isTrue();
    }
  }

  @Test
  void reconfigureTakesEffectOnTheNextCall() throws Exception {
    KoordinatorHooks hooks = new KoordinatorHooks(chain("{}"));
    PodContext be = pod(qos("BE"), Map.of());
    assertThat(hooks.createContainer(be, container("c")).adjustment().oomScoreAdj()).hasValue(1000);

    hooks.reconfigure(chain("{\"QoSClass\":{\"classes\":{\"BE\":{\"oomScoreAdj\":500}}}}"));

    assertThat(hooks.createContainer(be, container("c")).adjustment().oomScoreAdj()).hasValue(500);
  }

  @Test
  void failClosedHookRejectsTheEnginesCallWithItsStatus() throws Exception {
    KoordinatorHooks hooks = new KoordinatorHooks(chain("{}"));
    PodContext pinnedBadly = pod(qos("LSR"), Map.of(KoordinatorKeys.RESOURCE_STATUS, "{\"cpuset\":\"x\"}"));
    try (PluginChain engine = new PluginChain(List.of(hooks))) {
      assertThatThrownBy(() -> engine.createContainer(pinnedBadly, container("c")))
          .isInstanceOf(CrigateException.InvalidArgument.class)
          .hasMessageContaining("hook CPUSetAllocator rejected ns/p/c at PreCreateContainer")
          .hasMessageContaining(KoordinatorKeys.RESOURCE_STATUS);
    }
  }
}

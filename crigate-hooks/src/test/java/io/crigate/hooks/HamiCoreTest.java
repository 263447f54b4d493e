package io.crigate.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.Mount;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class HamiCoreTest {

  private static final HamiCore HAMI = new HamiCore("/opt/hami/libvgpu.so");

  private static JsonNode json(String text) throws Exception {
    return new ObjectMapper().readTree(text);
  }

  private static Adjustment share(String resources) throws Exception {
    Adjustment.Builder b = Adjustment.builder();
    HAMI.addShare(json(resources), b);
    return b.build();
  }

  @Test
  void aShareGetsItsLimitsTheLibraryPreloadedAndBothPathsBoundWhereTheyAreOnTheNode() throws Exception {
    // 2Gi = 2147483648 bytes; no gpu-core: no SM limit
    assertThat(share("{\"koordinator.sh/gpu-memory-ratio\":99,\"koordinator.sh/gpu-memory\":\"2Gi\"}"))
        .isEqualTo(Adjustment.builder().env("CUDA_DEVICE_MEMORY_LIMIT", "2147483648")
            .env("LD_PRELOAD", "/opt/hami/libvgpu.so")
            .mount(new Mount("/tmp/vgpulock", "/tmp/vgpulock", false))
            .mount(new Mount("/opt/hami/libvgpu.so", "/opt/hami/libvgpu.so", false)).build());
  }

  @ParameterizedTest
  @ValueSource(strings = {"100", "\"100\"", "200"})
  void aWholeGpuOrMoreGetsNothing(String ratio) throws Exception {
    assertThat(share("{\"koordinator.sh/gpu-memory-ratio\":" + ratio + ",\"koordinator.sh/gpu-memory\":\"16Gi\"}"))
        .isEqualTo(Adjustment.NONE);
  }

  @Test
  void withoutARatioTheAllocationIsRefusedNamingTheKey() {
    assertThatThrownBy(() -> share("{\"koordinator.sh/gpu-memory\":\"2Gi\"}"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("lack koordinator.sh/gpu-memory-ratio");
  }

  @Test
  void theLibraryPathDefaultsToKoordletsAndMustBeAbsolute() throws Exception {
    assertThat(HamiCore.fromSettings(json("{}"), "hooks.GPUEnvInject").libraryPath()).isEqualTo("/usr/local/vgpu/libvgpu.so");
    assertThat(HamiCore.fromSettings(json("{\"hamiCoreLibraryPath\":\"/x/libvgpu.so\"}"), "hooks.GPUEnvInject").libraryPath())
        .isEqualTo("/x/libvgpu.so");
    assertThatThrownBy(() -> HamiCore.fromSettings(json("{\"hamiCoreLibraryPath\":3}"), "hooks.GPUEnvInject"))
        .hasMessage("hooks.GPUEnvInject.hamiCoreLibraryPath must be an absolute file path, got 3");
  }
}

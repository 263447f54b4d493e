package io.crigate.spi.adjust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class AdjustmentTest {

  @Test
  void mountsAreKeptSortedByContainerPathAndReportedAsFieldsByIt() {
    Adjustment a = Adjustment.builder().mount(Mount.samePath("/usr/local/vgpu/libvgpu.so"))
        .mount(new Mount("/tmp/vgpulock", "/run/lock", true)).build();

    assertThat(a.mounts()).extracting(Mount::containerPath).containsExactly("/tmp/vgpulock", "/usr/local/vgpu/libvgpu.so");
    assertThat(a.fields()).containsExactly(
        java.util.Map.entry("mounts./tmp/vgpulock", new Mount("/tmp/vgpulock", "/run/lock", true)),
        java.util.Map.entry("mounts./usr/local/vgpu/libvgpu.so", Mount.samePath("/usr/local/vgpu/libvgpu.so")));
    assertThat(Adjustment.fromFields(a.fields())).isEqualTo(a);
    assertThat(a.isEmpty()).isFalse();
  }

  @Test
  void twoMountsAtOneContainerPathAreRefusedNamingThePathAndBoth() {
    assertThatThrownBy(() -> Adjustment.builder().mount(new Mount("/data", "/a", false))
        .mount(new Mount("/data", "/b", true)).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("two mounts at container path /data: Mount[containerPath=/data, hostPath=/a, readOnly=false]"
            + " and Mount[containerPath=/data, hostPath=/b, readOnly=true]");
  }

  @Test
  void relativePathsAreRefusedNamingWhichSide() {
    assertThatThrownBy(() -> new Mount("data", "/a", false)).hasMessage("mount container path 'data' is not an absolute path");
    assertThatThrownBy(() -> new Mount("/data", "a", false)).hasMessage("mount host path 'a' is not an absolute path");
  }
}

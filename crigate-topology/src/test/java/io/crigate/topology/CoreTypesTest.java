package io.crigate.topology;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CoreTypesTest {

  @Test
  void hybridPmuDirectoriesNameTheCoreTypes() {
    CoreTypes types = CoreTypes.discover(Fixtures.root("1-socket-hybrid-4p-smt-8e"), CpuSet.parse("0-15"));
    assertThat(types.performance()).hasToString("0-7");
    assertThat(types.efficient()).hasToString("8-15");
    assertThat(types.hybrid()).isTrue();
    assertThat(types.of(CoreTypes.Kind.EFFICIENT)).hasToString("8-15");
  }

  @Test
  void offlineCpusAreLeftOut() {
    assertThat(CoreTypes.discover(Fixtures.root("1-socket-hybrid-4p-smt-8e"), CpuSet.parse("0-3,8-9")).efficient()).hasToString("8-9");
  }

  /** Without the PMU directories (Arm big.LITTLE), the highest cpu_capacity is a performance core. */
  @Test
  void cpuCapacityTellsThemApartElsewhere(@TempDir Path sysfs) throws IOException {
    int[] capacity = {446, 446, 1024, 1024, 871};
    for (int cpu = 0; cpu < capacity.length; cpu++) {
      Path dir = Files.createDirectories(sysfs.resolve("devices/system/cpu/cpu" + cpu));
      Files.writeString(dir.resolve("cpu_capacity"), capacity[cpu] + "\n");
    }
    CoreTypes types = CoreTypes.discover(sysfs, CpuSet.parse("0-4"));
    assertThat(types.performance()).hasToString("2-3");
    assertThat(types.efficient()).hasToString("0-1,4");
  }

  @Test
  void oneKindOfCoreIsUniform(@TempDir Path sysfs) throws IOException {
    for (int cpu = 0; cpu < 2; cpu++) {
      Files.writeString(Files.createDirectories(sysfs.resolve("devices/system/cpu/cpu" + cpu)).resolve("cpu_capacity"), "1024");
    }
    assertThat(CoreTypes.discover(sysfs, CpuSet.parse("0-1"))).isEqualTo(CoreTypes.UNIFORM);
    assertThat(CoreTypes.discover(Fixtures.root("2-socket-16-cpu-smt"), CpuSet.parse("0-15")).hybrid()).isFalse();
  }
}

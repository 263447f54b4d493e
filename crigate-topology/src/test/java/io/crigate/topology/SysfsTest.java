package io.crigate.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SysfsTest {

  record Case(String name, String online, String offline, String isolated, int packages, int nodes, int threadsPerCore) {}

  static Stream<Case> cases() {
    return Stream.of(
        new Case("1-socket-4-core-nosmt", "0-3", "", "", 1, 1, 1),
        // 2 sockets x 4 cores x 2 threads = 16
        new Case("2-socket-16-cpu-smt", "0-15", "", "", 2, 1 * 2, 2),
        // 2 sockets x 2 nodes x 4 cores x 2 threads = 32
        new Case("2-socket-4-node-32-cpu-smt", "0-31", "", "", 2, 4, 2),
        new Case("1-socket-8-core-isolated-6-7", "0-7", "", "6-7", 1, 1, 1),
        // cpu 3 and its sibling 11 offline: 14 online, 14 / 7 cores = 2 threads per core
        new Case("2-socket-16-cpu-smt-offline-3-11", "0-2,4-10,12-15", "3,11", "", 2, 2, 2),
        // 4 P-cores with 2 threads and 8 E-cores with 1: 16 CPUs on 12 cores, 1 thread per core rounded down
        new Case("1-socket-hybrid-4p-smt-8e", "0-15", "", "", 1, 1, 1));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void discovers(Case c) {
    CpuTopology t = Fixtures.topology(c.name());
    assertThat(t.online()).hasToString(c.online());
    assertThat(t.offline()).hasToString(c.offline());
    assertThat(t.isolated()).hasToString(c.isolated());
    assertThat(t.packages()).hasSize(c.packages());
    assertThat(t.nodes()).hasSize(c.nodes());
    assertThat(t.threadsPerCore()).isEqualTo(c.threadsPerCore());
  }

  @Test
  void siblingsNodesAndDistances() {
    CpuTopology t = Fixtures.topology("2-socket-4-node-32-cpu-smt");
    // cores 0..15, cpu N and N+16 are siblings; node = core / 4
    assertThat(t.cores().values()).contains(CpuSet.parse("0,16"), CpuSet.parse("5,21"));
    assertThat(t.nodes()).containsEntry(1, CpuSet.parse("4-7,20-23"));
    assertThat(t.packages()).containsEntry(1, CpuSet.parse("8-15,24-31"));
    assertThat(t.distances().get(0)).isEqualTo(Map.of(0, 10, 1, 11, 2, 21, 3, 21));
    assertThat(t.nodesOf(CpuSet.parse("3,20"))).hasToString("0-1");
  }

  @Test
  void aMissingRootIsNamed() {
    assertThatThrownBy(() -> Sysfs.discover(Path.of("/nonexistent-sys")))
        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("/nonexistent-sys/devices/system/cpu/online");
  }

  @Test
  void cpuSetParsesAndPrints() {
    assertThat(CpuSet.parse(" 0-3, 8,10-11")).hasToString("0-3,8,10-11");
    assertThat(CpuSet.parse("0-3").minus(CpuSet.of(1))).hasToString("0,2-3");
    assertThatThrownBy(() -> CpuSet.parse("3-1")).hasMessageContaining("bad part '3-1'");
  }
}

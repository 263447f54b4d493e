package io.crigate.policy;

import static io.crigate.policy.BalloonsPolicyTest.config;
import static io.crigate.policy.BalloonsPolicyTest.pod;
import static io.crigate.policy.StaticPolicyTest.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.PodContext;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.Fixtures;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Uncore frequencies and C-states of CPU classes, written to a sysfs tree laid out as the kernel's
 * (intel_uncore_frequency's package_PP_die_DD zones, cpuidle's stateK/{name,disable}) on the
 * 2-socket-16-cpu-smt topology: socket 0 = CPUs 0-3,8-11, socket 1 = 4-7,12-15, one die each.
 */
class CpuClassControlTest {

  private static final CpuTopology TOPOLOGY = Fixtures.topology("2-socket-16-cpu-smt");
  private static final List<String> STATES = List.of("POLL", "C1", "C1E", "C6");

  @TempDir
  Path sysfs;

  @BeforeEach
  void machine() throws IOException {
    for (int cpu = 0; cpu < 16; cpu++) {
      for (int k = 0; k < STATES.size(); k++) {
        Path state = Files.createDirectories(sysfs.resolve("devices/system/cpu/cpu%d/cpuidle/state%d".formatted(cpu, k)));
        Files.writeString(state.resolve("name"), STATES.get(k) + "\n");
        Files.writeString(state.resolve("disable"), "0\n");
      }
    }
    for (int pkg = 0; pkg < 2; pkg++) {
      Path zone = Files.createDirectories(sysfs.resolve("devices/system/cpu/intel_uncore_frequency/package_%02d_die_00".formatted(pkg)));
      for (String file : List.of("initial_min_freq_khz", "min_freq_khz")) {
        Files.writeString(zone.resolve(file), "800000\n");
      }
      for (String file : List.of("initial_max_freq_khz", "max_freq_khz")) {
        Files.writeString(zone.resolve(file), "2400000\n");
      }
    }
  }

  private static final String CLASSES = """
      balloonTypes:
        - {name: fast, namespaces: [fast], cpuClass: turbo}
        - {name: calm, namespaces: [calm], cpuClass: steady}
      control:
        cpu:
          classes:
            turbo: {uncoreMinFreq: 2000000, uncoreMaxFreq: 2400000, disabledCstates: [C6, C1E]}
            steady: {uncoreMinFreq: 1200000, uncoreMaxFreq: 1600000}
      """;

  @Test
  void theHighestUncoreLimitsOfTheClassesOnADieWinAndGoBackWhenTheyLeave() throws IOException {
    BalloonsPolicy policy = policy(CLASSES);
    PodContext calm = pod("c", "calm", Map.of());
    policy.createContainer(calm, container("c", "app", 2000)); // socket 0
    assertThat(uncore(0)).isEqualTo("1200000-1600000");
    assertThat(uncore(1)).as("no class on socket 1").isEqualTo("800000-2400000");

    PodContext fast = pod("f", "fast", Map.of());
    policy.createContainer(fast, container("f", "app", 2000)); // socket 0 too: turbo's limits are higher
    assertThat(topologyPackage(policy.balloonCpus().get("fast[0]"))).isEqualTo(0);
    assertThat(uncore(0)).isEqualTo("2000000-2400000");

    policy.removeContainer(fast, container("f", "app", 2000));
    assertThat(uncore(0)).isEqualTo("1200000-1600000");
    policy.removeContainer(calm, container("c", "app", 2000));
    assertThat(uncore(0)).as("back to the zone's initial limits").isEqualTo("800000-2400000");
  }

  @Test
  void disabledCstatesAreOffOnTheClassCpusOnlyAndBackOnWhenTheyLeave() throws IOException {
    BalloonsPolicy policy = policy(CLASSES);
    PodContext fast = pod("f", "fast", Map.of());
    policy.createContainer(fast, container("f", "app", 1000));
    int cpu = policy.balloonCpus().get("fast[0]").stream().findFirst().orElseThrow();
    assertThat(disabled(cpu)).containsExactly("C1E", "C6");
    assertThat(disabled(cpu == 2 ? 3 : 2)).as("a CPU of no balloon").isEmpty();

    policy.removeContainer(fast, container("f", "app", 1000));
    assertThat(disabled(cpu)).isEmpty();
  }

  @Test
  void uncoreLimitsWithoutTheDriverAreRefusedNamingTheKey() throws IOException {
    try (var files = Files.walk(sysfs.resolve("devices/system/cpu/intel_uncore_frequency"))) {
      files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    }
    assertThatThrownBy(() -> policy(CLASSES)).isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("policy.balloons.control.cpu.classes.turbo.uncoreMinFreq: the uncore frequency cannot be set: "
            + "the intel_uncore_frequency driver is not loaded");
  }

  @Test
  void anUnknownCstateIsRefusedWithTheMachinesStates() {
    assertThatThrownBy(() -> policy(CLASSES.replace("[C6, C1E]", "[C10]"))).isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("policy.balloons.control.cpu.classes.turbo.disabledCstates: 'C10' is not a C-state of this machine "
            + "(cpuidle has: C1, C1E, C6, POLL)");
  }

  @Test
  void badValuesAreRejectedNamingTheField() {
    assertThatThrownBy(() -> config("control: {cpu: {classes: {x: {uncoreMinFreq: 2400000, uncoreMaxFreq: 800000}}}}"))
        .hasMessageContaining("policy.balloons.control.cpu.classes.x: uncoreMinFreq 2400000 kHz is more than uncoreMaxFreq 800000 kHz");
    assertThatThrownBy(() -> config("control: {cpu: {classes: {x: {disabledCstates: C6}}}}"))
        .hasMessageContaining("policy.balloons.control.cpu.classes.x.disabledCstates must be a list of C-state names");
    assertThatThrownBy(() -> config("control: {cpu: {classes: {x: {uncoreMaxFreq: fast}}}}"))
        .hasMessageContaining("policy.balloons.control.cpu.classes.x.uncoreMaxFreq: 'fast' is not a frequency in kHz");
  }

  private BalloonsPolicy policy(String yaml) {
    return new BalloonsPolicy(TOPOLOGY, CpuSet.parse("0"), config(yaml), new MemoryStore(), sysfs);
  }

  private static int topologyPackage(CpuSet cpus) {
    return TOPOLOGY.cpu(cpus.stream().findFirst().orElseThrow()).packageId();
  }

  private String uncore(int pkg) throws IOException {
    Path zone = sysfs.resolve("devices/system/cpu/intel_uncore_frequency/package_%02d_die_00".formatted(pkg));
    return Files.readString(zone.resolve("min_freq_khz")).strip() + "-" + Files.readString(zone.resolve("max_freq_khz")).strip();
  }

  private List<String> disabled(int cpu) throws IOException {
    List<String> off = new java.util.ArrayList<>();
    for (int k = 0; k < STATES.size(); k++) {
      Path state = sysfs.resolve("devices/system/cpu/cpu%d/cpuidle/state%d".formatted(cpu, k));
      if (Files.readString(state.resolve("disable")).strip().equals("1")) {
        off.add(STATES.get(k));
      }
    }
    return off.stream().sorted().toList();
  }
}

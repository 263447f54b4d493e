package io.crigate.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DeviceLocalityTest {

  record Case(String device, String cpus) {
    @Override
    public String toString() {
      return device;
    }
  }

  /** 2-socket-4-node-32-cpu-smt: node n = 4n..4n+3 and 16+4n..16+4n+3; eth0 on node 3, nvme0n1 on node 0. */
  static Stream<Case> cases() {
    return Stream.of(
        new Case("/sys/class/net/eth0", "12-15,28-31"),                 // its device link's local_cpulist
        new Case("/sys/class/block/nvme0n1", "0-3,16-19"),               // only numa_node
        new Case("/sys/bus/pci/devices/0000:02:01.0", "8-11,24-27"),     // local_cpulist of the device itself
        new Case("/sys/devices/pci0000:01/0000:01:01.0", "4-7,20-23"),
        new Case("/sys/devices/system/node/node2", "8-11,24-27"),        // a NUMA node's cpulist
        new Case("/sys/class/net/eth9", ""),                             // no such device
        new Case("/sys/devices/system/cpu", ""));                        // exists, says nothing about locality
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void findsTheCpusNearADevice(Case c) {
    DeviceLocality devices = new DeviceLocality(Fixtures.root("2-socket-4-node-32-cpu-smt"), Fixtures.topology("2-socket-4-node-32-cpu-smt"));
    assertThat(devices.cpusNear(c.device()).map(CpuSet::toString).orElse("")).isEqualTo(c.cpus());
  }

  /** As real sysfs has it: a class entry is a symlink into devices/, a cache index lists the CPUs sharing it, -1 is no node. */
  @Test
  void followsSymlinksAndReadsCachesAndNoNode(@TempDir Path sysfs) throws IOException {
    CpuTopology topology = Fixtures.topology("2-socket-16-cpu-smt");
    Path nic = Files.createDirectories(sysfs.resolve("devices/pci0000:00/0000:00:03.0/net/eth1"));
    Files.writeString(nic.getParent().getParent().resolve("local_cpulist"), "4-7,12-15\n");
    Files.createDirectories(sysfs.resolve("class/net"));
    Files.createSymbolicLink(sysfs.resolve("class/net/eth1"), Path.of("../../devices/pci0000:00/0000:00:03.0/net/eth1"));
    Path cache = Files.createDirectories(sysfs.resolve("devices/system/cpu/cpu1/cache/index2"));
    Files.writeString(cache.resolve("shared_cpu_list"), "1,9\n");
    Path virtual = Files.createDirectories(sysfs.resolve("devices/virtual/net/lo"));
    Files.writeString(virtual.resolve("numa_node"), "-1\n");

    DeviceLocality devices = new DeviceLocality(sysfs, topology);
    assertThat(devices.cpusNear("/sys/class/net/eth1")).contains(CpuSet.parse("4-7,12-15"));
    assertThat(devices.cpusNear("/sys/devices/system/cpu/cpu1/cache/index2")).contains(CpuSet.parse("1,9"));
    assertThat(devices.cpusNear("/sys/devices/virtual/net/lo")).isEqualTo(Optional.empty());
  }

  @Test
  void aPathOutsideSysIsRefusedByName() {
    DeviceLocality devices = new DeviceLocality(Fixtures.root("2-socket-16-cpu-smt"), Fixtures.topology("2-socket-16-cpu-smt"));
    assertThatThrownBy(() -> devices.cpusNear("/dev/nvme0n1"))
        .isInstanceOf(IllegalArgumentException.class).hasMessage("'/dev/nvme0n1' is not a sysfs path (it must start with /sys/)");
  }
}

package io.crigate.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.adjust.LinuxResources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostCgroupsTest {

  @TempDir Path root;

  private Path cgroup;
  private Path proc;

  private void layout(boolean unified) throws IOException {
    cgroup = Files.createDirectories(root.resolve("cgroup"));
    proc = Files.createDirectories(root.resolve("proc"));
    if (unified) {
      Files.writeString(cgroup.resolve("cgroup.controllers"), "cpuset cpu memory");
    }
  }

  private Path dir(String relative) throws IOException {
    return Files.createDirectories(cgroup.resolve(relative));
  }

  @Test
  void unifiedHierarchyGetsWeightCpuMaxCpusetAndMemoryMax() throws IOException {
    layout(true);
    Path pod = dir("kubepods/besteffort/pod1");
    HostCgroups host = HostCgroups.at(cgroup, proc);

    host.write("/kubepods/besteffort/pod1", LinuxResources.builder().cpuShares(2).cpuQuota(50_000)
        .cpusetCpus("0-1").cpusetMems("0").memoryLimit(256L << 20).build());

    assertThat(host.unified()).isTrue();
    assertThat(Files.readString(pod.resolve("cpu.weight"))).isEqualTo("1");
    assertThat(Files.readString(pod.resolve("cpu.max"))).isEqualTo("50000 100000");
    assertThat(Files.readString(pod.resolve("cpuset.cpus"))).isEqualTo("0-1");
    assertThat(Files.readString(pod.resolve("cpuset.mems"))).isEqualTo("0");
    assertThat(Files.readString(pod.resolve("memory.max"))).isEqualTo(Long.toString(256L << 20));
  }

  @Test
  void unlimitedQuotaAndMemoryAreMaxOnV2() throws IOException {
    layout(true);
    Path pod = dir("p");
    HostCgroups.at(cgroup, proc).write("p", LinuxResources.builder().cpuQuota(-1).memoryLimit(-1).build());

    assertThat(Files.readString(pod.resolve("cpu.max"))).isEqualTo("max 100000");
    assertThat(Files.readString(pod.resolve("memory.max"))).isEqualTo("max");
  }

  @Test
  void weightMapsSharesAsTheRuntimeDoes() {
    assertThat(HostCgroups.weight(2)).isEqualTo(1);
    assertThat(HostCgroups.weight(1024)).isEqualTo(39);
    assertThat(HostCgroups.weight(262144)).isEqualTo(10000);
  }

  @Test
  void perControllerHierarchyGetsV1Files() throws IOException {
    layout(false);
    Path cpu = dir("cpu/kubepods/pod1");
    Path memory = dir("memory/kubepods/pod1");
    dir("cpuset/kubepods/pod1");

    HostCgroups.at(cgroup, proc).write("/kubepods/pod1",
        LinuxResources.builder().cpuShares(2).cpuPeriod(100_000).cpuQuota(-1).memoryLimit(1 << 30).build());

    assertThat(Files.readString(cpu.resolve("cpu.shares"))).isEqualTo("2");
    assertThat(Files.readString(cpu.resolve("cpu.cfs_period_us"))).isEqualTo("100000");
    assertThat(Files.readString(cpu.resolve("cpu.cfs_quota_us"))).isEqualTo("-1");
    assertThat(Files.readString(memory.resolve("memory.limit_in_bytes"))).isEqualTo(Long.toString(1 << 30));
    assertThat(cgroup.resolve("cpuset/kubepods/pod1/cpuset.cpus")).doesNotExist();
  }

  @Test
  void aProcessIsFoundThroughItsProcCgroupFile() throws IOException {
    layout(false);
    Path cpu = dir("cpu/kubepods/pod1/c1");
    Files.createDirectories(proc.resolve("42"));
    Files.writeString(proc.resolve("42/cgroup"), "12:memory:/kubepods/pod1/c1\n4:cpu,cpuacct:/kubepods/pod1/c1\n0::/\n");

    HostCgroups.at(cgroup, proc).writeForProcess(42, LinuxResources.builder().cpuShares(512).build());

    assertThat(Files.readString(cpu.resolve("cpu.shares"))).isEqualTo("512");
  }

  @Test
  void oomScoreGoesToEveryProcessOfTheContainer() throws IOException {
    layout(true);
    Path c = dir("kubepods/pod1/c1");
    Files.writeString(c.resolve("cgroup.procs"), "42\n43\n");
    for (String pid : new String[] {"42", "43"}) {
      Files.createDirectories(proc.resolve(pid));
      Files.writeString(proc.resolve(pid).resolve("cgroup"), "0::/kubepods/pod1/c1\n");
    }

    int set = HostCgroups.at(cgroup, proc).writeOomScoreAdj(42, 1000);

    assertThat(set).isEqualTo(2);
    assertThat(Files.readString(proc.resolve("42/oom_score_adj"))).isEqualTo("1000");
    assertThat(Files.readString(proc.resolve("43/oom_score_adj"))).isEqualTo("1000");
  }

  @Test
  void aMissingCgroupIsAnErrorNamingTheFile() throws IOException {
    layout(true);
    HostCgroups host = HostCgroups.at(cgroup, proc);

    assertThatThrownBy(() -> host.write("gone", LinuxResources.builder().cpuShares(2).build()))
        .isInstanceOf(UncheckedIOException.class).hasMessageContaining("gone/cpu.weight");
  }
}

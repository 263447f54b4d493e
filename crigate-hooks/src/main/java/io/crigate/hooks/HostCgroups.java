package io.crigate.hooks;

import io.crigate.spi.adjust.LinuxResources;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Writes what UpdateContainerResources cannot carry straight to the host: pod-level cgroup values
 * (CRI has no call for a pod's cgroup on containerd 1.6) and a running container's OOM score
 * (runc cannot update it). Handles the unified hierarchy (cgroup v2) and, because many nodes still
 * run it, the per-controller v1 layout; the cgroupfs layout, where a cgroup parent is a path.
 */
public final class HostCgroups {

  private final Path cgroupRoot;
  private final Path procRoot;
  private final boolean v2;

  private HostCgroups(Path cgroupRoot, Path procRoot, boolean v2) {
    this.cgroupRoot = cgroupRoot;
    this.procRoot = procRoot;
    this.v2 = v2;
  }

  /** v2 when the root holds {@code cgroup.controllers}, as a unified mount does. */
  public static HostCgroups at(Path cgroupRoot, Path procRoot) {
    return new HostCgroups(cgroupRoot, procRoot, Files.exists(cgroupRoot.resolve("cgroup.controllers")));
  }

  public boolean unified() {
    return v2;
  }

  /** The v2 weight the runtime derives from v1 shares: 2..262144 onto 1..10000. */
  static long weight(long shares) {
    return 1 + ((shares - 2) * 9999) / 262142;
  }

  /** Writes the set fields into the cgroup at {@code cgroupPath} (a path under each hierarchy, e.g. a pod's cgroup parent). */
  public void write(String cgroupPath, LinuxResources resources) {
    write(controller -> dir(controller, cgroupPath), resources);
  }

  /** Writes the set fields into the cgroup that holds process {@code pid}. */
  public void writeForProcess(long pid, LinuxResources resources) {
    Map<String, String> paths = cgroupsOf(pid);
    write(controller -> dir(controller, paths.getOrDefault(v2 ? "" : controller, "")), resources);
  }

  /** Sets the OOM score adjustment of every process in {@code pid}'s cgroup; returns how many were set. */
  public int writeOomScoreAdj(long pid, long value) {
    Map<String, String> paths = cgroupsOf(pid);
    Path procs = dir("memory", paths.getOrDefault(v2 ? "" : "memory", "")).resolve("cgroup.procs");
    List<String> pids = Files.exists(procs) ? read(procs).lines().filter(l -> !l.isBlank()).toList()
        : List.of(Long.toString(pid));
    for (String p : pids) {
      writeFile(procRoot.resolve(p.strip()).resolve("oom_score_adj"), Long.toString(value));
    }
    return pids.size();
  }

  private interface Dirs {
    Path of(String controller);
  }

  private void write(Dirs dirs, LinuxResources r) {
    if (v2) {
      r.cpuShares().ifPresent(s -> writeFile(dirs.of("cpu").resolve("cpu.weight"), Long.toString(weight(s))));
      if (r.cpuQuota().isPresent()) {
        long quota = r.cpuQuota().getAsLong();
        String period = Long.toString(r.cpuPeriod().orElse(BatchResourceHook.CFS_PERIOD_US));
        writeFile(dirs.of("cpu").resolve("cpu.max"), (quota < 0 ? "max" : Long.toString(quota)) + " " + period);
      }
      r.cpusetCpus().ifPresent(c -> writeFile(dirs.of("cpuset").resolve("cpuset.cpus"), c));
      r.cpusetMems().ifPresent(m -> writeFile(dirs.of("cpuset").resolve("cpuset.mems"), m));
      r.memoryLimit().ifPresent(m -> writeFile(dirs.of("memory").resolve("memory.max"), m < 0 ? "max" : Long.toString(m)));
      r.unified().forEach((file, value) -> writeFile(dirs.of("").resolve(file), value));
      return;
    }
    r.cpuShares().ifPresent(s -> writeFile(dirs.of("cpu").resolve("cpu.shares"), Long.toString(s)));
    r.cpuPeriod().ifPresent(p -> writeFile(dirs.of("cpu").resolve("cpu.cfs_period_us"), Long.toString(p)));
    r.cpuQuota().ifPresent(q -> writeFile(dirs.of("cpu").resolve("cpu.cfs_quota_us"), Long.toString(q)));
    r.cpusetCpus().ifPresent(c -> writeFile(dirs.of("cpuset").resolve("cpuset.cpus"), c));
    r.cpusetMems().ifPresent(m -> writeFile(dirs.of("cpuset").resolve("cpuset.mems"), m));
    r.memoryLimit().ifPresent(m -> writeFile(dirs.of("memory").resolve("memory.limit_in_bytes"), Long.toString(m)));
  }

  /** The cgroup's directory; a path that climbs out of the hierarchy (".." in a cgroup parent) is refused. */
  private Path dir(String controller, String cgroupPath) {
    String relative = cgroupPath.startsWith("/") ? cgroupPath.substring(1) : cgroupPath;
    Path hierarchy = v2 ? cgroupRoot : cgroupRoot.resolve(controller);
    Path dir = hierarchy.resolve(relative).normalize();
    if (!dir.startsWith(hierarchy.normalize())) {
      throw new UncheckedIOException(new IOException("cgroup path '%s' leaves %s".formatted(cgroupPath, hierarchy)));
    }
    return dir;
  }

  /** Controller → path from {@code /proc/<pid>/cgroup}; v2's single line is under the key "". */
  Map<String, String> cgroupsOf(long pid) {
    Map<String, String> paths = new HashMap<>();
    for (String line : read(procRoot.resolve(Long.toString(pid)).resolve("cgroup")).lines().toList()) {
      String[] parts = line.split(":", 3);
      if (parts.length < 3) {
        continue;
      }
      if (parts[1].isEmpty()) {
        paths.put("", parts[2]);
      }
      for (String controller : parts[1].split(",")) {
        paths.put(controller, parts[2]);
      }
    }
    return paths;
  }

  private static String read(Path file) {
    try {
      return Files.readString(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  private static void writeFile(Path file, String value) {
    try {
      Files.writeString(file, value);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write %s to %s".formatted(value, file), e);
    }
  }
}

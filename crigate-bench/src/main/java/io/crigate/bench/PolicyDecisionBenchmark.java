package io.crigate.bench;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.core.state.GatewayState;
import io.crigate.policy.Policies;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceRequirements;
import io.crigate.topology.Cpu;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Issue 12 item 8, the in-process figures: how long a policy takes to decide a CreateContainer on the
 * 2-socket fixture's layout scaled to 2 sockets × 64 cores × 2 threads (256 CPUs) with 500 containers
 * already running, and how much heap those 500 containers' allocations hold. Each pinning policy is
 * measured against {@code none} in the same run, alternating in blocks; state goes to a real state DB
 * (SQLite, as {@code crigate serve} keeps it), so the durable write of each allocation is included.
 *
 * <p>One decision is the policy's CreateContainer (what to pin, and the updates for other containers)
 * for a new container; it is then removed again, untimed, so 500 stay running. New containers
 * alternate between a Guaranteed 2-CPU one and a Burstable 250m one.
 *
 * <p>Each decision is timed twice: wall clock, which on a shared machine includes waiting for a CPU,
 * and the thread's own CPU time ({@code CLOCK_THREAD_CPUTIME_ID}), which does not. The policies' INFO
 * lines (one per allocation) are turned off: what a log line costs is the logger's, not the decision's.
 *
 * <p>Usage: {@code java -cp ... io.crigate.bench.PolicyDecisionBenchmark [iterations] [warmup]}.
 */
public final class PolicyDecisionBenchmark {

  static final int RUNNING = 500;
  static final int BLOCK = 200;
  static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  static final Map<String, String> CONFIGS = configs();
  static final com.sun.management.ThreadMXBean THREADS = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  private PolicyDecisionBenchmark() {}

  public static void main(String[] args) throws Exception {
    int iterations = args.length > 0 ? Integer.parseInt(args[0]) : 20_000;
    int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 5_000;
    ((ch.qos.logback.classic.Logger) org.slf4j.LoggerFactory.getLogger("io.crigate.policy")).setLevel(ch.qos.logback.classic.Level.WARN);
    CpuTopology topology = scaledTwoSocket(64, 2);
    System.out.printf(Locale.ROOT, "topology: %d CPUs, %d sockets, %d threads per core; %d running containers; load %s%n",
        topology.online().size(), topology.packages().size(), topology.threadsPerCore(), RUNNING, loadAverage());
    Path dir = Files.createTempDirectory("policy-bench-");
    try (GatewayState state = GatewayState.open(dir)) {
      Fleet none = Fleet.start("none", topology, state.backendStore("@bench/none"));
      System.out.println("| policy | wall p50 µs | wall p99 µs | CPU p50 µs | CPU p99 µs | allocated p50 / p99 KiB | none wall p50 µs | none wall p99 µs |");
      System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
      for (String policy : List.of("static", "topology-aware", "balloons")) {
        Fleet fleet = Fleet.start(policy, topology, state.backendStore("@bench/" + policy));
        Samples baseline = new Samples();
        Samples decisions = new Samples();
        Samples cpu = new Samples();
        Samples allocated = new Samples();
        Samples ignored = new Samples();
        for (int i = 0; i < warmup; i++) {
          none.decide(i, ignored, ignored);
          fleet.decide(i, ignored, ignored);
        }
        for (int done = 0; done < iterations; done += BLOCK) {
          for (int i = 0; i < BLOCK; i++) {
            baseline.add(none.decide(done + i, ignored, ignored));
          }
          for (int i = 0; i < BLOCK; i++) {
            decisions.add(fleet.decide(done + i, cpu, allocated));
          }
        }
        System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f | %.1f / %.1f | %.1f | %.1f |%n",
            policy, decisions.percentileMicros(50), decisions.percentileMicros(99), cpu.percentileMicros(50), cpu.percentileMicros(99),
            allocated.percentile(50) / 1024.0, allocated.percentile(99) / 1024.0,
            baseline.percentileMicros(50), baseline.percentileMicros(99));
      }
      for (String policy : List.of("none", "static", "topology-aware", "balloons")) {
        System.out.printf(Locale.ROOT, "%-15s heap for %d containers' allocations: %s%n", policy, RUNNING,
            heapOf(policy, topology, state.backendStore("@bench/heap-" + policy)));
      }
    }
  }

  /** The 2-socket fixture's layout (threads i and i+N are siblings, one NUMA node per socket), scaled. */
  static CpuTopology scaledTwoSocket(int coresPerSocket, int threads) {
    List<Cpu> cpus = new ArrayList<>();
    int perThread = 2 * coresPerSocket;
    for (int thread = 0; thread < threads; thread++) {
      for (int socket = 0; socket < 2; socket++) {
        for (int core = 0; core < coresPerSocket; core++) {
          cpus.add(new Cpu(thread * perThread + socket * coresPerSocket + core, socket, 0, socket, core));
        }
      }
    }
    return new CpuTopology(cpus, CpuSet.EMPTY, CpuSet.EMPTY, Map.of(0, Map.of(0, 10, 1, 21), 1, Map.of(0, 21, 1, 10)));
  }

  /** 500 running containers under one policy, and a new one created (timed) and removed per decision. */
  record Fleet(AdjustmentPlugin policy, List<ContainerContext> running) {

    static Fleet start(String name, CpuTopology topology, DurableStore store) throws Exception {
      AdjustmentPlugin policy = Policies.create(YAML.readTree(CONFIGS.get(name)), topology, store);
      List<ContainerContext> running = new ArrayList<>();
      for (int i = 0; i < RUNNING; i++) {
        // 40 Guaranteed containers of 2 CPUs, the rest Burstable 250m, in 25 namespaces
        boolean guaranteed = i % 12 == 0 && i < 480;
        ContainerContext c = container("run-" + i, guaranteed ? 2000 : 250);
        PodContext pod = pod("run-" + i, guaranteed);
        LinuxResources cpus = policy.createContainer(pod, c).adjustment().resources();
        policy.postCreateContainer(pod, c.withId("id-run-" + i).withResources(cpus));
        running.add(c);
      }
      return new Fleet(policy, running);
    }

    /**
     * One timed decision: returns its wall time, adds its thread CPU time to {@code cpu} and the heap
     * it allocated (bytes, the state DB's JDBC work included) to {@code allocated}.
     */
    long decide(int i, Samples cpu, Samples allocated) {
      boolean guaranteed = i % 2 == 0;
      String podId = "new-" + i;
      PodContext pod = pod(podId, guaranteed);
      ContainerContext c = container(podId, guaranteed ? 2000 : 250);
      long allocatedStart = THREADS.getCurrentThreadAllocatedBytes();
      long cpuStart = THREADS.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      PluginResult result = policy.createContainer(pod, c);
      long elapsed = System.nanoTime() - start;
      cpu.add(THREADS.getCurrentThreadCpuTime() - cpuStart);
      allocated.add(THREADS.getCurrentThreadAllocatedBytes() - allocatedStart);
      if (result.adjustment() == null) {
        throw new IllegalStateException("no adjustment");
      }
      policy.removeContainer(pod, c);
      return elapsed;
    }
  }

  static PodContext pod(String id, boolean guaranteed) {
    return new PodContext(id, id, "team-" + Math.abs(id.hashCode() % 25), "uid-" + id,
        guaranteed ? QosClass.GUARANTEED : QosClass.BURSTABLE, Map.of(), Map.of(), "", "", ResourceRequirements.NONE, Map.of());
  }

  static ContainerContext container(String podId, long milli) {
    return new ContainerContext(new ContainerKey(podId, "app", 0), "", Map.of(), Map.of(), Map.of(),
        new ResourceRequirements(milli, milli, 64 << 20, 64 << 20), LinuxResources.NONE);
  }

  /** Heap the policy holds for 500 containers: used heap after placing them minus before, after full GCs. */
  static String heapOf(String name, CpuTopology topology, DurableStore store) throws Exception {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = settledHeap(memory);
    Fleet fleet = Fleet.start(name, topology, store);
    long after = settledHeap(memory);
    long bytes = after - before;
    String text = "%.1f KiB (%d bytes per container)".formatted(bytes / 1024.0, bytes / RUNNING);
    if (fleet.running().size() != RUNNING) {
      throw new IllegalStateException("fleet lost containers");
    }
    return text;
  }

  private static long settledHeap(MemoryMXBean memory) throws InterruptedException {
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(100);
    }
    return memory.getHeapMemoryUsage().getUsed();
  }

  private static String loadAverage() {
    return "%.2f".formatted(ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
  }

  private static Map<String, String> configs() {
    Map<String, String> configs = new LinkedHashMap<>();
    configs.put("none", "active: none");
    configs.put("static", "active: static\nreservedCpus: \"0,128\"");
    configs.put("topology-aware", "active: topology-aware\nreservedCpus: \"0,128\"");
    configs.put("balloons", """
        active: balloons
        reservedCpus: "0,128"
        balloons:
          balloonTypes:
            - {name: team, namespaces: ["team-*"], minCPUs: 1, maxCPUs: 8}
        """);
    return configs;
  }
}

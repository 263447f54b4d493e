package io.crigate.policy;

import io.crigate.policy.PoolTree.Pool;
import io.crigate.policy.seed.PodHints;
import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.topology.CpuAllocator;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Places each container in the smallest pool of the {@link PoolTree} that can hold it. A container
 * of a Guaranteed pod with a whole-number CPU request gets that many CPUs of its pool for itself;
 * every other container shares its pool's CPUs that are neither exclusive nor isolated. Memory
 * nodes follow the CPUs. Among pools of one size the one with the most free shared capacity wins,
 * which spreads containers. Exact rules: docs/policies.md.
 */
final class TopologyAwarePolicy implements ReleasesOnStop {

  /** The pool name of containers that run on the reserved CPUs ({@code prefer-reserved-cpus}); not a pool of the tree. */
  static final String RESERVED_POOL = "reserved";
  private static final Logger log = LoggerFactory.getLogger(TopologyAwarePolicy.class);
  private static final String GRANT = "grant/";

  /** Where a container was placed: its pool, its exclusive CPUs (empty when shared) and its shared request. */
  record Grant(String pool, CpuSet exclusive, long sharedMilli) {
    String encode() {
      return pool + ";" + exclusive + ";" + sharedMilli;
    }

    static Grant decode(String text) {
      String[] parts = text.split(";", -1);
      return new Grant(parts[0], CpuSet.parse(parts[1]), Long.parseLong(parts[2]));
    }
  }

  private final CpuTopology topology;
  private final CpuAllocator allocator;
  private final CpuSet reserved;
  private final DurableStore store;
  private final List<Pool> pools;
  private final Map<String, Pool> poolsByName = new HashMap<>();
  private final Map<ContainerKey, Grant> grants = new LinkedHashMap<>();
  /** Kept with {@link #grants} as they change, so no decision sums over every container: every exclusive CPU. */
  private CpuSet exclusive = CpuSet.EMPTY;
  /** The same: each pool's shared containers (placed in the pool itself) and their summed requests. */
  private final Map<String, PoolLoad> loadByPool = new HashMap<>();
  /**
   * The same, by position in {@link #pools}: the shared requests placed in each pool or below it,
   * so the fit test of a placement reads one number per pool instead of summing over the pools.
   */
  private final long[] loadWithin;
  /** Each pool's position in {@link #pools}; pools are compared by identity, there being one object per pool. */
  private final Map<Pool, Integer> positions = new IdentityHashMap<>();
  /** Each pool's shared CPUs, worked out once per change of {@link #exclusive} rather than per placement. */
  private final Map<Pool, CpuSet> sharedCpus = new IdentityHashMap<>();

  private record PoolLoad(int containers, long milli) {
    PoolLoad plus(PoolLoad other) {
      return containers + other.containers == 0 ? null : new PoolLoad(containers + other.containers, milli + other.milli);
    }
  }
  /** Runtime ids of placed containers, once known, with the CPUs they were last given. */
  private final Map<ContainerKey, String> ids = new LinkedHashMap<>();
  private final Map<ContainerKey, CpuSet> given = new LinkedHashMap<>();

  TopologyAwarePolicy(CpuTopology topology, CpuSet reserved, DurableStore store) {
    this.topology = topology;
    this.allocator = new CpuAllocator(topology);
    this.reserved = reserved;
    this.store = store;
    this.pools = PoolTree.build(topology);
    for (int i = 0; i < pools.size(); i++) {
      poolsByName.put(pools.get(i).name(), pools.get(i));
      positions.put(pools.get(i), i);
    }
    this.loadWithin = new long[pools.size()];
    CpuSet usable = topology.online().minus(reserved);
    StoredCpus.restore(store, GRANT, "topology-aware policy: container", Grant::decode, Grant::exclusive,
        (container, grant) -> usable, (container, grant) -> record(ContainerKeys.parse(container), grant));
  }

  @Override
  public String name() {
    return "topology-aware";
  }

  Map<ContainerKey, Grant> grants() {
    return Map.copyOf(grants);
  }

  /** The CPUs shared containers of {@code pool} run on. */
  CpuSet sharedCpus(Pool pool) {
    return sharedCpus.computeIfAbsent(pool, p -> p.cpus().minus(exclusive).minus(topology.isolated()));
  }

  /** What shared containers of {@code pool} and the pools below it could still be given, in mCPU. */
  private long freeShared(Pool pool) {
    return sharedCpus(pool).size() * 1000L - loadWithin[positions.get(pool)];
  }

  /** The pools that have shared containers. */
  private List<Pool> sharedPools() {
    return loadByPool.keySet().stream().map(this::poolNamed).distinct().toList();
  }

  private CpuSet freeIsolated(Pool pool) {
    return pool.cpus().intersect(topology.isolated()).minus(exclusive).minus(reserved);
  }

  @Override
  public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    Map<String, PodContext> podsById = new LinkedHashMap<>();
    pods.forEach(pod -> podsById.put(pod.id(), pod));
    List<ContainerKey> live = containers.stream().map(ContainerContext::key).toList();
    for (ContainerKey key : List.copyOf(grants.keySet())) {
      if (!live.contains(key)) {
        release(key);
      }
    }
    ids.clear();
    given.clear();
    for (ContainerContext c : containers) {
      PodContext pod = podsById.get(c.podId());
      if (!grants.containsKey(c.key()) && pod != null) {
        try {
          place(pod, c);
        } catch (CrigateException.FailedPrecondition e) {
          log.warn("container {} is not placed: {}", c.key(), e.getMessage());
        }
      }
      if (grants.containsKey(c.key())) {
        ids.put(c.key(), c.id());
        // Never re-pinned without cause: what a container already runs on counts as given.
        c.resources().cpusetCpus().ifPresent(cpus -> given.put(c.key(), CpuSet.parse(cpus)));
      }
    }
    return changed();
  }

  @Override
  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    Grant grant = place(pod, container);
    CpuSet cpus = cpusOf(grant);
    given.put(container.key(), cpus);
    return new PluginResult(Adjustment.of(pin(cpus)), changed());
  }

  @Override
  public PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    if (grants.containsKey(container.key())) {
      ids.put(container.key(), container.id());
      return PluginResult.update(changed()); // a pool may have changed while this container was being created
    }
    return PluginResult.NONE;
  }

  @Override
  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    Grant grant = grants.get(container.key());
    return grant == null ? PluginResult.NONE : PluginResult.adjust(Adjustment.of(pin(cpusOf(grant))));
  }

  @Override
  public PluginResult forget(ContainerKey key) {
    if (!grants.containsKey(key)) {
      return PluginResult.NONE;
    }
    release(key);
    return PluginResult.update(changed());
  }

  private Grant place(PodContext pod, ContainerContext container) {
    long request = container.requirements().defaulted().cpuRequestMilli();
    String name = container.name();
    boolean exclusive = pod.qosClass() == QosClass.GUARANTEED && container.requirements().hasIntegerCpuRequest()
        && !PodHints.flag(pod, PodHints.PREFER_SHARED, name).orElse(false);
    Grant grant;
    if (PodHints.flag(pod, PodHints.PREFER_RESERVED, name).orElse(false) && !reserved.isEmpty()) {
      // nri-plugins' meaning: share the reserved CPUs, whatever the QoS class (without reserved CPUs
      // the hint cannot be honoured; UnreadPodAnnotations says so once per pod).
      grant = new Grant(RESERVED_POOL, CpuSet.EMPTY, request);
    } else if (exclusive) {
      grant = placeExclusive(pod, container, (int) (request / 1000));
    } else {
      grant = placeShared(unlimitedBurstableLevel(pod, container), request);
    }
    record(container.key(), grant);
    store.put(GRANT + container.key(), grant.encode().getBytes(StandardCharsets.UTF_8));
    // Arguments, not a message built here: the line is rendered by the logger, once, only if written.
    if (grant.exclusive().isEmpty()) {
      log.info("topology-aware: container {} placed in pool {} (shared, {} mCPU)", container.key(), grant.pool(), grant.sharedMilli());
    } else {
      log.info("topology-aware: container {} placed in pool {} (exclusive CPUs {})", container.key(), grant.pool(), grant.exclusive());
    }
    return grant;
  }

  private Grant placeShared(OptionalInt level, long milli) {
    Predicate<Pool> fits = p -> !sharedCpus(p).isEmpty() && freeShared(p) >= milli;
    // A level asked for by unlimited-burstable: the most free pool of that level that fits; when none
    // does, the usual rule, as nri-plugins treats the level as a preference.
    Optional<Pool> atLevel = level.isEmpty() ? Optional.empty()
        : PoolTree.atDepth(pools, level.getAsInt()).stream().filter(fits)
            .max(Comparator.comparingLong(this::freeShared).thenComparing(p -> -positions.get(p)));
    // Requests beyond every pool's capacity (an overcommitted node) still run: on the whole machine.
    Pool pool = atLevel.orElseGet(() -> smallest(fits).orElse(pools.getFirst()));
    return new Grant(pool.name(), CpuSet.EMPTY, milli);
  }

  /**
   * The tree depth an unlimited Burstable container asks for with {@code unlimited-burstable}
   * (nri-plugins' levels; {@code l3cache}, which crigate's tree lacks, is the NUMA level below which
   * it would sit). Empty for other containers and values, which keep the usual rule.
   */
  private static OptionalInt unlimitedBurstableLevel(PodContext pod, ContainerContext container) {
    if (pod.qosClass() != QosClass.BURSTABLE || container.requirements().cpuLimitMilli() > 0) {
      return OptionalInt.empty();
    }
    return PodHints.value(pod, PodHints.UNLIMITED_BURSTABLE, container.name())
        .map(value -> PoolTree.depthOfLevel(value.toLowerCase(java.util.Locale.ROOT)))
        .orElse(OptionalInt.empty());
  }

  private Grant placeExclusive(PodContext pod, ContainerContext container, int count) {
    // require-isolated-cpus reads like prefer-isolated-cpus but fails instead of falling back.
    Optional<Boolean> required = PodHints.flag(pod, PodHints.REQUIRE_ISOLATED, container.name());
    boolean isolated = required.or(() -> PodHints.flag(pod, PodHints.PREFER_ISOLATED, container.name())).orElse(count == 1);
    if (isolated) {
      Optional<Pool> pool = smallest(p -> freeIsolated(p).size() >= count);
      if (pool.isPresent()) {
        return new Grant(pool.get().name(), allocator.allocate(freeIsolated(pool.get()), count), 0);
      }
      if (required.orElse(false)) {
        throw new CrigateException.FailedPrecondition(("topology-aware policy: container %s has %s set and asks for %d "
            + "isolated CPUs, no pool has them free (isolated: %s, exclusive: %s, reserved: %s)")
            .formatted(container.key(), PodHints.REQUIRE_ISOLATED, count, topology.isolated(), exclusive, reserved));
      }
    }
    for (Pool pool : bySize().toList()) {
      CpuSet free = sharedCpus(pool).minus(reserved);
      if (free.size() >= count) {
        CpuSet cpus = allocator.allocate(free, count);
        if (keepsSharedCpus(cpus)) {
          return new Grant(pool.name(), cpus, 0);
        }
      }
    }
    throw refused(container, "%d exclusive CPUs".formatted(count));
  }

  /** Whether the machine and every pool with shared containers keep a CPU to run on after {@code taken}. */
  private boolean keepsSharedCpus(CpuSet taken) {
    if (sharedCpus(pools.getFirst()).minus(taken).isEmpty()) {
      return false;
    }
    return sharedPools().stream().allMatch(pool -> !sharedCpus(pool).minus(taken).isEmpty());
  }

  /**
   * The first pool that fits in {@link #bySize} order, found in one pass over the tree instead of
   * sorting it: every shared container's placement asks this.
   */
  private Optional<Pool> smallest(Predicate<Pool> fits) {
    Comparator<Pool> order = bySizeOrder();
    Pool best = null;
    for (Pool pool : pools) {
      // Strictly before only: among equals the earlier pool in tree order stays, as the stable sort keeps it.
      if (fits.test(pool) && (best == null || order.compare(pool, best) < 0)) {
        best = pool;
      }
    }
    return Optional.ofNullable(best);
  }

  /** Smallest pools first; among equals, the one with the most free shared capacity (spreading), then tree order. */
  private Stream<Pool> bySize() {
    return pools.stream().sorted(bySizeOrder());
  }

  private Comparator<Pool> bySizeOrder() {
    return Comparator.comparingInt((Pool p) -> p.cpus().size())
        .thenComparing(Comparator.comparingLong(this::freeShared).reversed());
  }

  /** Puts a grant in place, keeping the running totals. */
  private void record(ContainerKey key, Grant grant) {
    Grant previous = grants.put(key, grant);
    if (previous != null) {
      count(previous, -1);
    }
    count(grant, 1);
  }

  private void count(Grant grant, int sign) {
    if (!grant.exclusive().isEmpty()) {
      exclusive = sign > 0 ? exclusive.union(grant.exclusive()) : exclusive.minus(grant.exclusive());
      sharedCpus.clear();
    } else if (!grant.pool().equals(RESERVED_POOL)) {
      loadByPool.merge(grant.pool(), new PoolLoad(sign, sign * grant.sharedMilli()), PoolLoad::plus);
      Pool placed = poolNamed(grant.pool());
      for (int i = 0; i < pools.size(); i++) {
        if (pools.get(i).contains(placed)) {
          loadWithin[i] += sign * grant.sharedMilli();
        }
      }
    }
  }

  /** The CPUs container {@code key} is to run on now. */
  CpuSet cpus(ContainerKey key) {
    return cpusOf(grants.get(key));
  }

  /** Reserved CPUs are never exclusive, so the reserved pool is fixed. */
  private CpuSet cpusOf(Grant grant) {
    if (!grant.exclusive().isEmpty()) {
      return grant.exclusive();
    }
    return grant.pool().equals(RESERVED_POOL) ? reserved : sharedCpus(poolNamed(grant.pool()));
  }

  private Pool poolNamed(String name) {
    // A pool recorded on another machine layout falls back to the root.
    return poolsByName.getOrDefault(name, pools.getFirst());
  }

  /** Updates for every placed container with a known id whose CPUs are no longer what it was given. */
  private List<ContainerUpdate> changed() {
    List<ContainerUpdate> updates = new ArrayList<>();
    // Each pool's shared CPUs, and what pinning to them means, once per call, not once per
    // container: an exclusive allocation moves hundreds of shared containers to the same CPUs.
    Map<String, CpuSet> sharedByPool = new HashMap<>();
    Map<CpuSet, LinuxResources> pins = new HashMap<>();
    ids.forEach((key, id) -> {
      Grant grant = grants.get(key);
      CpuSet now = grant.exclusive().isEmpty()
          ? sharedByPool.computeIfAbsent(grant.pool(), name -> cpusOf(grant))
          : grant.exclusive();
      if (!now.equals(given.get(key))) {
        given.put(key, now);
        updates.add(new ContainerUpdate(id, pins.computeIfAbsent(now, this::pin), grant.exclusive().isEmpty()));
      }
    });
    return updates;
  }

  private void release(ContainerKey key) {
    Grant grant = grants.remove(key);
    count(grant, -1);
    ids.remove(key);
    given.remove(key);
    store.remove(GRANT + key);
    log.info("topology-aware: container {} left pool {}", key, grant.pool());
  }

  private CrigateException.FailedPrecondition refused(ContainerContext container, String what) {
    return new CrigateException.FailedPrecondition("topology-aware policy: no pool has %s for container %s (exclusive: %s, reserved: %s)"
        .formatted(what, container.key(), exclusive, reserved));
  }

  private LinuxResources pin(CpuSet cpus) {
    return ReleasesOnStop.pin(topology, cpus);
  }
}

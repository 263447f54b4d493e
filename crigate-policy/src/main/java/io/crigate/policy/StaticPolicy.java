package io.crigate.policy;

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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The kubelet CPU manager's static policy, as an adjustment plugin. A container of a Guaranteed pod
 * with a whole-number CPU request gets that many CPUs for itself (see {@link CpuAllocator}) and the
 * memory nodes they belong to; every other container runs on the shared pool, which is every
 * allocatable CPU not given out exclusively, reserved CPUs included. When the pool shrinks or grows,
 * every shared container is updated.
 *
 * <p>{@code static-plus} is the same with two additions (docs/policies.md): single-CPU exclusive
 * containers take an isolated CPU first, and a Burstable container with a whole-number request may
 * opt in to exclusive CPUs with {@link #OPT_IN_ANNOTATION}.
 */
final class StaticPolicy implements ReleasesOnStop {

  /** Pod annotation (optionally {@code /container.<name>}-scoped) that opts a Burstable container in. */
  static final String OPT_IN_ANNOTATION = "static-plus.crigate.io/exclusive-cpus";
  private static final Logger log = LoggerFactory.getLogger(StaticPolicy.class);
  private static final String EXCLUSIVE = "exclusive/";

  private final String name;
  private final boolean plus;
  private final CpuTopology topology;
  private final CpuAllocator allocator;
  private final CpuSet reserved;
  private final DurableStore store;
  /** Exclusive CPUs by container; the durable copy is under {@code exclusive/<key>}. */
  private final Map<ContainerKey, CpuSet> exclusive = new LinkedHashMap<>();
  /** Containers on the shared pool that can be updated, by key: their runtime ids. */
  private final Map<ContainerKey, String> shared = new LinkedHashMap<>();

  StaticPolicy(String name, boolean plus, CpuTopology topology, CpuSet reserved, DurableStore store) {
    this.name = name;
    this.plus = plus;
    this.topology = topology;
    this.allocator = new CpuAllocator(topology);
    this.reserved = reserved;
    this.store = store;
    CpuSet usable = topology.online().minus(reserved);
    StoredCpus.restore(store, EXCLUSIVE, name + " policy: container", CpuSet::parse, cpus -> cpus,
        (container, cpus) -> usable,
        (container, cpus) -> exclusive.put(ContainerKeys.parse(container), cpus));
  }

  @Override
  public String name() {
    return name;
  }

  /** What shared containers run on: every usable CPU not given out exclusively. */
  CpuSet sharedPool() {
    CpuSet pool = topology.online();
    if (plus) {
      pool = pool.minus(topology.isolated());
    }
    for (CpuSet cpus : exclusive.values()) {
      pool = pool.minus(cpus);
    }
    return pool;
  }

  Map<ContainerKey, CpuSet> exclusiveAllocations() {
    return Map.copyOf(exclusive);
  }

  @Override
  public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    Map<String, PodContext> podsById = new LinkedHashMap<>();
    pods.forEach(pod -> podsById.put(pod.id(), pod));
    List<String> live = containers.stream().map(c -> c.key().toString()).toList();
    // Allocations of containers that no longer exist are released.
    for (ContainerKey key : List.copyOf(exclusive.keySet())) {
      if (!live.contains(key.toString())) {
        release(key);
      }
    }
    List<ContainerUpdate> updates = new ArrayList<>();
    List<ContainerContext> sharedOnes = new ArrayList<>();
    for (ContainerContext c : containers) {
      PodContext pod = podsById.get(c.podId());
      CpuSet cpus = exclusive.get(c.key());
      if (cpus == null && pod != null && wantsExclusive(pod, c)) {
        try {
          cpus = allocate(pod, c);
        } catch (CrigateException.FailedPrecondition e) {
          log.warn("container {} stays on the shared pool: {}", c.key(), e.getMessage());
        }
      }
      if (cpus != null) {
        if (!c.resources().cpusetCpus().equals(Optional.of(cpus.toString()))) {
          updates.add(ContainerUpdate.of(c.id(), pin(cpus)));
        }
      } else {
        shared.put(c.key(), c.id());
        sharedOnes.add(c);
      }
    }
    CpuSet pool = sharedPool();
    for (ContainerContext c : sharedOnes) {
      // Never re-pinned without cause: only a container not already on the pool moves.
      if (!c.resources().cpusetCpus().equals(Optional.of(pool.toString()))) {
        updates.add(ContainerUpdate.of(c.id(), pin(pool)));
      }
    }
    return updates;
  }

  @Override
  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    if (!wantsExclusive(pod, container)) {
      shared.put(container.key(), "");
      return PluginResult.adjust(Adjustment.of(pin(sharedPool())));
    }
    CpuSet cpus = allocate(pod, container);
    return new PluginResult(Adjustment.of(pin(cpus)), sharedUpdates());
  }

  @Override
  public PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    if (shared.containsKey(container.key())) {
      shared.put(container.key(), container.id());
      // The pool may have shrunk while this container was being created.
      String pool = sharedPool().toString();
      if (!container.resources().cpusetCpus().orElse("").equals(pool)) {
        return PluginResult.update(List.of(ContainerUpdate.of(container.id(), pin(sharedPool()))));
      }
    }
    return PluginResult.NONE;
  }

  @Override
  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    CpuSet cpus = exclusive.getOrDefault(container.key(), sharedPool());
    return PluginResult.adjust(Adjustment.of(pin(cpus)));
  }

  @Override
  public PluginResult forget(ContainerKey key) {
    shared.remove(key);
    if (exclusive.containsKey(key)) {
      release(key);
      return PluginResult.update(sharedUpdates());
    }
    return PluginResult.NONE;
  }

  boolean wantsExclusive(PodContext pod, ContainerContext container) {
    if (!container.requirements().hasIntegerCpuRequest()) {
      return false;
    }
    if (pod.qosClass() == QosClass.GUARANTEED) {
      return true;
    }
    return plus && pod.qosClass() == QosClass.BURSTABLE
        && Boolean.parseBoolean(pod.annotation(OPT_IN_ANNOTATION, container.name(), "false"));
  }

  private CpuSet allocate(PodContext pod, ContainerContext container) {
    int count = (int) (container.requirements().defaulted().cpuRequestMilli() / 1000);
    CpuSet free = sharedPool().minus(reserved);
    CpuSet cpus;
    CpuSet freeIsolated = topology.isolated().minus(allocated()).minus(reserved);
    // static-plus reads nri-plugins' isolated-CPU hints too: prefer-isolated-cpus turns the one-CPU
    // default on or off, require-isolated-cpus refuses rather than fall back to ordinary CPUs.
    Optional<Boolean> required = plus ? PodHints.flag(pod, PodHints.REQUIRE_ISOLATED, container.name()) : Optional.empty();
    boolean isolated = plus && required.or(() -> PodHints.flag(pod, PodHints.PREFER_ISOLATED, container.name())).orElse(count == 1);
    if (isolated && freeIsolated.size() >= count) {
      cpus = allocator.allocate(freeIsolated, count);
    } else if (required.orElse(false)) {
      throw new CrigateException.FailedPrecondition("%s policy: container %s has %s set and asks for %d isolated CPUs, %d are free (isolated: %s)"
          .formatted(name, container.key(), PodHints.REQUIRE_ISOLATED, count, freeIsolated.size(), topology.isolated()));
    } else {
      // The shared pool must keep at least one CPU, and reserved CPUs are never handed out.
      if (free.size() < count || sharedPool().size() - count < 1) {
        throw new CrigateException.FailedPrecondition(
            "%s policy: container %s asks for %d exclusive CPUs, %d can be given (free: %s, reserved: %s)"
                .formatted(name, container.key(), count, Math.max(0, Math.min(free.size(), sharedPool().size() - 1)), free, reserved));
      }
      cpus = allocator.allocate(free, count);
    }
    exclusive.put(container.key(), cpus);
    store.put(EXCLUSIVE + container.key(), cpus.toString().getBytes(StandardCharsets.UTF_8));
    log.info("{} policy: container {} gets exclusive CPUs {}", name, container.key(), cpus);
    return cpus;
  }

  private CpuSet allocated() {
    return exclusive.values().stream().reduce(CpuSet.EMPTY, CpuSet::union);
  }

  private void release(ContainerKey key) {
    CpuSet cpus = exclusive.remove(key);
    store.remove(EXCLUSIVE + key);
    log.info("{} policy: container {} released CPUs {}", name, key, cpus);
  }

  private List<ContainerUpdate> sharedUpdates() {
    LinuxResources pool = pin(sharedPool());
    return shared.values().stream().filter(id -> !id.isEmpty())
        .map(id -> new ContainerUpdate(id, pool, true)).toList();
  }

  private LinuxResources pin(CpuSet cpus) {
    return ReleasesOnStop.pin(topology, cpus);
  }
}

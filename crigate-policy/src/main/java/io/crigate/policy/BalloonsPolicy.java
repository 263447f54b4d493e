package io.crigate.policy;

import static io.crigate.policy.BalloonsConfig.DEFAULT;
import static io.crigate.policy.BalloonsConfig.RESERVED;

import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.ContainerUpdate;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PluginResult;
import io.crigate.spi.adjust.PodContext;
import io.crigate.topology.CpuAllocator;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every container in a balloon: a set of CPUs its containers share and no other container
 * uses. Balloons of the configured {@link BalloonType}s are created when a container needs one,
 * inflate and deflate with the CPU requests of their containers (within the type's min and max), and
 * disappear with their last container; every container of a balloon whose CPUs change gets an
 * update. The built-in {@code reserved} balloon runs on the reserved CPUs, the built-in
 * {@code default} balloon on every CPU no balloon holds (or the reserved CPUs when none is left).
 * Exact rules: docs/policies.md.
 */
final class BalloonsPolicy implements ReleasesOnStop {

  /** nri-plugins' key, so pods move between the two unchanged; {@code /container.<name>} and {@code /pod} scope it. */
  static final String ANNOTATION = "balloon.balloons.resource-policy.nri.io";
  /** CRI Resource Manager's spelling of the same key, read when nri-plugins' is absent. */
  static final String CRI_RM_ANNOTATION = "balloon.balloons.cri-resource-manager.intel.com";
  private static final Logger log = LoggerFactory.getLogger(BalloonsPolicy.class);
  private static final String MEMBER = "member/";
  private static final String CPUS = "cpus/";

  /** Where a container runs: its balloon's name, its pod and its CPU request. */
  record Member(String balloon, String podId, long milli) {
    String encode() {
      return balloon + ";" + podId + ";" + milli;
    }

    static Member decode(String text) {
      String[] parts = text.split(";", -1);
      return new Member(parts[0], parts[1], Long.parseLong(parts[2]));
    }
  }

  /** A balloon of a configured type, named {@code <type>[<n>]}; replaced whenever its CPUs change. */
  record Balloon(String name, BalloonType type, CpuSet cpus) {}

  private final CpuTopology topology;
  private final CpuAllocator allocator;
  private final CpuSet reserved;
  private final BalloonsConfig config;
  private final DurableStore store;
  private final Map<String, BalloonType> types = new LinkedHashMap<>();
  private final Map<String, Balloon> balloons = new TreeMap<>();
  private final Map<ContainerKey, Member> members = new LinkedHashMap<>();
  /** Runtime ids of placed containers, once known, with the CPUs they were last given. */
  private final Map<ContainerKey, String> ids = new LinkedHashMap<>();
  private final Map<ContainerKey, CpuSet> given = new LinkedHashMap<>();

  BalloonsPolicy(CpuTopology topology, CpuSet reserved, BalloonsConfig config, DurableStore store) {
    this.topology = topology;
    this.allocator = new CpuAllocator(topology);
    this.reserved = reserved;
    this.config = config;
    this.store = store;
    config.balloonTypes().forEach(type -> types.put(type.name(), type));
    restore();
  }

  @Override
  public String name() {
    return "balloons";
  }

  /** Every balloon's CPUs by name, the built-in ones included. */
  Map<String, CpuSet> balloonCpus() {
    Map<String, CpuSet> all = new LinkedHashMap<>();
    all.put(RESERVED, reservedBalloonCpus());
    all.put(DEFAULT, defaultCpus());
    balloons.forEach((name, balloon) -> all.put(name, balloon.cpus()));
    return all;
  }

  /** The balloon each placed container runs in. */
  Map<ContainerKey, String> memberships() {
    Map<ContainerKey, String> out = new LinkedHashMap<>();
    members.forEach((key, member) -> out.put(key, member.balloon()));
    return out;
  }

  @Override
  public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    Map<String, PodContext> podsById = new LinkedHashMap<>();
    pods.forEach(pod -> podsById.put(pod.id(), pod));
    Set<ContainerKey> live = containers.stream().map(ContainerContext::key).collect(Collectors.toSet());
    for (ContainerKey key : List.copyOf(members.keySet())) {
      if (!live.contains(key)) {
        members.remove(key);
        store.remove(MEMBER + key);
      }
    }
    ids.clear();
    given.clear();
    // Balloons that lost containers (or whose type changed) take their size first, freeing CPUs.
    balloons.values().stream().sorted(byPriority(Balloon::type)).map(Balloon::name).toList().forEach(this::resize);
    List<ContainerContext> unplaced = new ArrayList<>();
    for (ContainerContext c : containers) {
      if (members.containsKey(c.key())) {
        known(c);
      } else if (podsById.containsKey(c.podId())) {
        unplaced.add(c);
      }
    }
    // Higher allocator priority gets CPUs first; the built-in balloons take none and go before all.
    unplaced.sort(byPriority(c -> typeOrNull(podsById.get(c.podId()), c)));
    for (ContainerContext c : unplaced) {
      try {
        place(podsById.get(c.podId()), c);
        known(c);
      } catch (CrigateException e) {
        log.warn("container {} is not in a balloon: {}", c.key(), e.getMessage());
      }
    }
    return changed();
  }

  @Override
  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    Member member = members.containsKey(container.key()) ? members.get(container.key()) : place(pod, container);
    CpuSet cpus = cpusOf(member.balloon());
    given.put(container.key(), cpus);
    return new PluginResult(Adjustment.of(pin(cpus)), changed());
  }

  @Override
  public PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    if (!members.containsKey(container.key())) {
      return PluginResult.NONE;
    }
    ids.put(container.key(), container.id());
    return PluginResult.update(changed()); // its balloon may have changed while it was being created
  }

  @Override
  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    Member member = members.get(container.key());
    return member == null ? PluginResult.NONE : PluginResult.adjust(Adjustment.of(pin(cpusOf(member.balloon()))));
  }

  @Override
  public PluginResult forget(ContainerKey key) {
    Member member = members.remove(key);
    if (member == null) {
      return PluginResult.NONE;
    }
    store.remove(MEMBER + key);
    ids.remove(key);
    given.remove(key);
    if (balloons.containsKey(member.balloon())) {
      resize(member.balloon());
    }
    return PluginResult.update(changed());
  }

  private void known(ContainerContext c) {
    ids.put(c.key(), c.id());
    // Never re-pinned without cause: what a container already runs on counts as given.
    c.resources().cpusetCpus().ifPresent(cpus -> given.put(c.key(), CpuSet.parse(cpus)));
  }

  private Member place(PodContext pod, ContainerContext container) {
    long milli = container.requirements().defaulted().cpuRequestMilli();
    String typeName = typeFor(pod, container);
    BalloonType type = types.get(typeName);
    String balloon = type == null ? builtIn(typeName, container) : choose(type, pod.id(), milli, container);
    Member member = new Member(balloon, container.podId(), milli);
    members.put(container.key(), member);
    store.put(MEMBER + container.key(), member.encode().getBytes(StandardCharsets.UTF_8));
    if (type != null) {
      resize(balloon);
    }
    log.info("balloons: container {} runs in balloon {} ({} mCPU)", container.key(), balloon, milli);
    return member;
  }

  /** The balloon type a container asks for by annotation, else the one its namespace matches. */
  private String typeFor(PodContext pod, ContainerContext container) {
    String named = pod.annotation(ANNOTATION, container.name(), pod.annotation(CRI_RM_ANNOTATION, container.name(), ""));
    if (!named.isEmpty()) {
      if (named.equals(RESERVED) || named.equals(DEFAULT) || types.containsKey(named)) {
        return named;
      }
      throw new CrigateException.InvalidArgument("balloons policy: container %s: annotation %s names balloon type '%s', which is not configured (types: %s)"
          .formatted(container.key(), ANNOTATION, named, String.join(", ", allTypeNames())));
    }
    if (config.reservedNamespace(pod.namespace())) {
      return RESERVED;
    }
    return types.values().stream().filter(t -> t.matches(pod.namespace())).findFirst().map(BalloonType::name).orElse(DEFAULT);
  }

  private BalloonType typeOrNull(PodContext pod, ContainerContext container) {
    try {
      return types.get(typeFor(pod, container));
    } catch (CrigateException e) {
      return null; // refused again, with the message, when it is placed
    }
  }

  private String builtIn(String name, ContainerContext container) {
    if (cpusOf(name).isEmpty()) {
      throw refused(container, "balloon " + name + " has no CPU left");
    }
    return name;
  }

  /** An existing balloon of {@code type} that can take {@code milli} more, or a new one, as the type prefers. */
  private String choose(BalloonType type, String podId, long milli, ContainerContext container) {
    if (!type.holds(milli)) {
      throw refused(container, "balloon type %s holds at most %d CPUs".formatted(type.name(), type.maxCpus()));
    }
    List<Balloon> ofType = balloons.values().stream().filter(b -> b.type().name().equals(type.name()))
        .sorted(Comparator.comparingLong((Balloon b) -> b.cpus().size() * 1000L - load(b.name())).reversed()).toList();
    List<Balloon> withPod = ofType.stream().filter(b -> hasPod(b.name(), podId)).toList();
    List<Balloon> withoutPod = ofType.stream().filter(b -> !hasPod(b.name(), podId)).toList();
    boolean spreading = type.preferSpreadingPods();
    List<Optional<Balloon>> options = new ArrayList<>(); // empty = a new balloon
    (spreading ? withoutPod : withPod).forEach(b -> options.add(Optional.of(b)));
    int newAt = type.preferNewBalloons() ? 0 : spreading ? options.size() : -1;
    (spreading ? withPod : withoutPod).forEach(b -> options.add(Optional.of(b)));
    options.add(newAt < 0 ? options.size() : newAt, Optional.empty());
    for (Optional<Balloon> option : options) {
      if (option.isPresent() && canJoin(option.get(), milli)) {
        return option.get().name();
      }
      if (option.isEmpty() && type.cpusFor(milli) <= spare()) {
        return create(type, milli).name();
      }
    }
    throw refused(container, "no balloon of type %s can take %d mCPU more and %d free CPUs cannot make a new one"
        .formatted(type.name(), milli, spare()));
  }

  private boolean canJoin(Balloon balloon, long milli) {
    long load = load(balloon.name()) + milli;
    return balloon.type().holds(load) && balloon.type().cpusFor(load) - balloon.cpus().size() <= spare();
  }

  private Balloon create(BalloonType type, long milli) {
    int index = 0;
    while (balloons.containsKey(type.name() + "[" + index + "]")) {
      index++;
    }
    Balloon balloon = new Balloon(type.name() + "[" + index + "]", type, allocator.allocate(free(), type.cpusFor(milli)));
    put(balloon);
    log.info("balloons: created balloon {} on CPUs {}", balloon.name(), balloon.cpus());
    return balloon;
  }

  /** Gives a balloon the size its containers need; one without containers is removed and its CPUs freed. */
  private void resize(String name) {
    Balloon balloon = balloons.get(name);
    long load = load(name);
    if (!hasMembers(name)) {
      balloons.remove(name);
      store.remove(CPUS + name);
      log.info("balloons: balloon {} is empty and released CPUs {}", name, balloon.cpus());
      return;
    }
    int need = balloon.type().cpusFor(load);
    int size = balloon.cpus().size();
    CpuSet cpus = balloon.cpus();
    if (need > size) {
      cpus = cpus.union(near(cpus, Math.min(need - size, spare())));
    } else if (need < size) {
      // The allocator picks the tightest subset (whole cores, one node) of what the balloon has.
      cpus = allocator.allocate(cpus, need);
    }
    if (!cpus.equals(balloon.cpus())) {
      put(new Balloon(name, balloon.type(), cpus));
      log.info("balloons: balloon {} now has CPUs {} for {} mCPU", name, cpus, load);
    }
  }

  /** {@code count} free CPUs, from the balloon's NUMA nodes if they have them, else its sockets, else anywhere. */
  private CpuSet near(CpuSet cpus, int count) {
    CpuSet free = free();
    Map<Integer, CpuSet> nodes = topology.nodes();
    CpuSet sameNodes = topology.nodesOf(cpus).stream().mapToObj(nodes::get).reduce(CpuSet.EMPTY, CpuSet::union);
    Map<Integer, CpuSet> packages = topology.packages();
    CpuSet samePackages = packages.values().stream().filter(p -> p.intersects(cpus)).reduce(CpuSet.EMPTY, CpuSet::union);
    for (CpuSet scope : List.of(sameNodes, samePackages)) {
      if (free.intersect(scope).size() >= count) {
        return allocator.allocate(free.intersect(scope), count);
      }
    }
    return allocator.allocate(free, count);
  }

  private void put(Balloon balloon) {
    balloons.put(balloon.name(), balloon);
    store.put(CPUS + balloon.name(), balloon.cpus().toString().getBytes(StandardCharsets.UTF_8));
  }

  /** CPUs no balloon may use: reserved ones are the reserved balloon's, isolated ones are left alone. */
  private CpuSet usable() {
    return topology.online().minus(reserved).minus(topology.isolated());
  }

  private CpuSet free() {
    CpuSet free = usable();
    for (Balloon balloon : balloons.values()) {
      free = free.minus(balloon.cpus());
    }
    return free;
  }

  /**
   * Free CPUs balloons may still take. Without reserved CPUs to fall back on, the default balloon
   * keeps one while containers run in it (or in the reserved balloon, which then is the default).
   */
  private int spare() {
    boolean defaultNeedsOne = reserved.isEmpty() && (hasMembers(DEFAULT) || hasMembers(RESERVED));
    return Math.max(0, free().size() - (defaultNeedsOne ? 1 : 0));
  }

  private CpuSet defaultCpus() {
    CpuSet free = free();
    return free.isEmpty() ? reserved : free;
  }

  private CpuSet reservedBalloonCpus() {
    return reserved.isEmpty() ? defaultCpus() : reserved;
  }

  private CpuSet cpusOf(String balloon) {
    return switch (balloon) {
      case RESERVED -> reservedBalloonCpus();
      case DEFAULT -> defaultCpus();
      default -> balloons.get(balloon).cpus();
    };
  }

  private long load(String balloon) {
    return members.values().stream().filter(m -> m.balloon().equals(balloon)).mapToLong(Member::milli).sum();
  }

  private boolean hasMembers(String balloon) {
    return members.values().stream().anyMatch(m -> m.balloon().equals(balloon));
  }

  private boolean hasPod(String balloon, String podId) {
    return members.values().stream().anyMatch(m -> m.balloon().equals(balloon) && m.podId().equals(podId));
  }

  /** Updates for every placed container with a known id whose balloon's CPUs are no longer what it was given. */
  private List<ContainerUpdate> changed() {
    Map<String, CpuSet> now = balloonCpus();
    List<ContainerUpdate> updates = new ArrayList<>();
    ids.forEach((key, id) -> {
      CpuSet cpus = now.get(members.get(key).balloon());
      if (!cpus.equals(given.get(key))) {
        given.put(key, cpus);
        updates.add(new ContainerUpdate(id, pin(cpus), true));
      }
    });
    return updates;
  }

  /** Balloons and members from the store; what no longer fits the configuration or machine is dropped. */
  private void restore() {
    Map<String, byte[]> entries = store.entries();
    CpuSet taken = CpuSet.EMPTY;
    for (var entry : entries.entrySet()) {
      if (entry.getKey().startsWith(CPUS)) {
        String name = entry.getKey().substring(CPUS.length());
        BalloonType type = types.get(name.substring(0, Math.max(0, name.lastIndexOf('['))));
        CpuSet cpus = CpuSet.parse(new String(entry.getValue(), StandardCharsets.UTF_8));
        if (type != null && !cpus.isEmpty() && usable().containsAll(cpus) && !taken.intersects(cpus)) {
          balloons.put(name, new Balloon(name, type, cpus));
          taken = taken.union(cpus);
        } else {
          store.remove(entry.getKey());
        }
      }
    }
    for (var entry : entries.entrySet()) {
      if (entry.getKey().startsWith(MEMBER)) {
        Member member = Member.decode(new String(entry.getValue(), StandardCharsets.UTF_8));
        if (member.balloon().equals(RESERVED) || member.balloon().equals(DEFAULT) || balloons.containsKey(member.balloon())) {
          members.put(ContainerKeys.parse(entry.getKey().substring(MEMBER.length())), member);
        } else {
          store.remove(entry.getKey()); // placed again by synchronize
        }
      }
    }
  }

  private List<String> allTypeNames() {
    List<String> names = new ArrayList<>(List.of(RESERVED, DEFAULT));
    names.addAll(types.keySet());
    return names;
  }

  private static <T> Comparator<T> byPriority(java.util.function.Function<T, BalloonType> type) {
    return Comparator.comparingInt(item -> {
      BalloonType t = type.apply(item);
      return t == null ? -1 : t.allocatorPriority().ordinal();
    });
  }

  private CrigateException.FailedPrecondition refused(ContainerContext container, String why) {
    return new CrigateException.FailedPrecondition("balloons policy: container %s cannot run: %s (free: %s, reserved: %s)"
        .formatted(container.key(), why, free(), reserved));
  }

  private LinuxResources pin(CpuSet cpus) {
    return ReleasesOnStop.pin(topology, cpus);
  }
}

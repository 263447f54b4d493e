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
import io.crigate.topology.CoreTypes;
import io.crigate.topology.CpuSet;
import io.crigate.topology.CpuTopology;
import io.crigate.topology.DeviceLocality;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs every container in a balloon: a set of CPUs its containers share and no other container
 * uses. Balloons of the configured {@link BalloonType}s are created when a container needs one (or
 * up front, {@code minBalloons}), inflate and deflate with the CPU requests of their containers
 * (within the type's min and max), and disappear with their last container; every container of a
 * balloon whose CPUs change gets an update. The built-in {@code reserved} balloon runs on the
 * reserved CPUs, the built-in {@code default} balloon on every CPU no balloon holds (or the reserved
 * CPUs when none is left). Exact rules: docs/policies.md.
 *
 * <p>A decision reads running totals ({@link BalloonOccupants}, the CPUs all balloons hold) and
 * looks only at the containers of balloons whose CPUs changed, so its cost does not grow with the
 * number of containers on the node; its durable records are written in one transaction.
 */
final class BalloonsPolicy implements ReleasesOnStop {

  /** nri-plugins' key, so pods move between the two unchanged; {@code /container.<name>} and {@code /pod} scope it. */
  static final String ANNOTATION = "balloon.balloons.resource-policy.nri.io";
  /** CRI Resource Manager's spelling of the same key, read when nri-plugins' is absent. */
  static final String CRI_RM_ANNOTATION = "balloon.balloons.cri-resource-manager.intel.com";
  private static final Logger log = LoggerFactory.getLogger(BalloonsPolicy.class);
  private static final String MEMBER = "member/";
  private static final String CPUS = "cpus/";

  /** Where a container runs: its balloon's name, its pod, the pod's namespace and its CPU request. */
  record Member(String balloon, String podId, String namespace, long milli) {
    String encode() {
      return balloon + ";" + podId + ";" + milli + ";" + namespace;
    }

    /** Records written before namespaces were kept have three fields. */
    static Member decode(String text) {
      String[] parts = text.split(";", -1);
      return new Member(parts[0], parts[1], parts.length > 3 ? parts[3] : "", Long.parseLong(parts[2]));
    }
  }

  /** A balloon of a configured type, named {@code <type>[<n>]}; replaced whenever its CPUs change. */
  record Balloon(String name, BalloonType type, CpuSet cpus) {}

  private final CpuTopology topology;
  private final CpuSet reserved;
  private final BalloonsConfig config;
  private final DurableStore store;
  private final CpuClassControl cpuClasses;
  private final BalloonCpuPicker picker;
  /** CPUs balloons of configured types take, and the isolated ones that types preferring them may take too. */
  private final CpuSet usable;
  private final CpuSet usableIsolated;
  private final Map<String, BalloonType> types = new LinkedHashMap<>();
  private final Map<String, Balloon> balloons = new TreeMap<>();
  private final Map<ContainerKey, Member> members = new LinkedHashMap<>();
  private final Map<String, BalloonOccupants> occupants = new HashMap<>();
  /** Every CPU some balloon of a configured type holds. */
  private CpuSet taken = CpuSet.EMPTY;
  /** Runtime ids of placed containers, once known, with the CPUs they were last given. */
  private final Map<ContainerKey, String> ids = new LinkedHashMap<>();
  private final Map<ContainerKey, CpuSet> given = new LinkedHashMap<>();
  /** Each balloon's container CPUs when its containers were last checked; only a change means looking at them again. */
  private final Map<String, CpuSet> announced = new HashMap<>();
  /** Containers to check against their balloon though it did not change: new ids, synchronized ones. */
  private final Set<ContainerKey> pending = new LinkedHashSet<>();
  /** Records of the decision under way, written together by {@link #flush()}. */
  private final Map<String, byte[]> writes = new LinkedHashMap<>();

  /**
   * @param sysfsRoot where the machine's core types and devices are read and CPU classes written
   * @throws CrigateException.InvalidArgument naming the field when the configuration does not fit the machine
   */
  BalloonsPolicy(CpuTopology topology, CpuSet reserved, BalloonsConfig config, DurableStore store, Path sysfsRoot) {
    this.topology = topology;
    this.reserved = reserved;
    this.config = config;
    this.store = store;
    this.cpuClasses = new CpuClassControl(sysfsRoot, topology, config);
    this.picker = new BalloonCpuPicker(topology, CoreTypes.discover(sysfsRoot, topology.online()),
        new DeviceLocality(sysfsRoot, topology), config.balloonTypes());
    this.usable = topology.online().minus(reserved).minus(topology.isolated());
    this.usableIsolated = topology.isolated().minus(reserved);
    config.balloonTypes().forEach(type -> types.put(type.name(), type));
    restore();
    cpuClasses.assign(free().union(freeIsolated()), "");
    balloons.values().forEach(b -> cpuClasses.assign(b.cpus(), b.type().cpuClass()));
    createMinBalloons();
    flush();
  }

  @Override
  public String name() {
    return "balloons";
  }

  /** Every balloon's own CPUs by name, the built-in ones included. */
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
        removeMember(key);
      }
    }
    ids.clear();
    given.clear();
    announced.clear();
    pending.clear();
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
    flush();
    return changed();
  }

  @Override
  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    Member member = members.containsKey(container.key()) ? members.get(container.key()) : place(pod, container);
    flush();
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
    pending.add(container.key());
    return PluginResult.update(changed()); // its balloon may have changed while it was being created
  }

  @Override
  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    Member member = members.get(container.key());
    return member == null ? PluginResult.NONE : PluginResult.adjust(Adjustment.of(pin(cpusOf(member.balloon()))));
  }

  @Override
  public PluginResult forget(ContainerKey key) {
    Member member = removeMember(key);
    if (member == null) {
      return PluginResult.NONE;
    }
    ids.remove(key);
    given.remove(key);
    pending.remove(key);
    if (balloons.containsKey(member.balloon())) {
      resize(member.balloon());
    }
    flush();
    return PluginResult.update(changed());
  }

  private void known(ContainerContext c) {
    ids.put(c.key(), c.id());
    // Never re-pinned without cause: what a container already runs on counts as given.
    c.resources().cpusetCpus().ifPresent(cpus -> given.put(c.key(), CpuSet.parse(cpus)));
    pending.add(c.key());
  }

  private Member place(PodContext pod, ContainerContext container) {
    long milli = container.requirements().defaulted().cpuRequestMilli();
    String typeName = typeFor(pod, container);
    BalloonType type = types.get(typeName);
    String balloon = type == null ? builtIn(typeName, container) : choose(type, pod, milli, container);
    Member member = new Member(balloon, container.podId(), pod.namespace(), milli);
    addMember(container.key(), member);
    writes.put(MEMBER + container.key(), member.encode().getBytes(StandardCharsets.UTF_8));
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
    for (BalloonType type : types.values()) {
      if (type.matches(pod.namespace())) {
        return type.name();
      }
    }
    return DEFAULT;
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

  /**
   * An existing balloon of {@code type} that can take {@code milli} more, or a new one, in the
   * order the type prefers (docs/policies.md). A candidate of {@code null} is a new balloon.
   */
  private String choose(BalloonType type, PodContext pod, long milli, ContainerContext container) {
    if (!type.holds(milli)) {
      throw refused(container, "balloon type %s holds at most %d CPUs".formatted(type.name(), type.maxCpus()));
    }
    List<Balloon> candidates = new ArrayList<>();
    for (Balloon balloon : balloons.values()) {
      if (balloon.type().name().equals(type.name())) {
        candidates.add(balloon);
      }
    }
    int existing = candidates.size();
    candidates.add(null);
    candidates.sort(Comparator.comparingInt((Balloon b) -> newRank(type, b))
        .thenComparingInt(b -> namespaceRank(type, b, pod.namespace()))
        .thenComparingInt(b -> podRank(type, b, pod.id()))
        .thenComparingLong(b -> b == null ? 0 : -(b.cpus().size() * 1000L - occupants(b.name()).milli())));
    for (Balloon candidate : candidates) {
      if (candidate != null && canJoin(candidate, milli)) {
        return candidate.name();
      }
      if (candidate == null && type.allows(existing + 1) && type.cpusFor(milli, true) <= spare(type)) {
        return create(type, type.cpusFor(milli, true)).name();
      }
    }
    String limit = type.allows(existing + 1) ? "" : " (and it has maxBalloons %d already)".formatted(type.maxBalloons());
    throw refused(container, "no balloon of type %s can take %d mCPU more and %d free CPUs cannot make a new one%s"
        .formatted(type.name(), milli, spare(type), limit));
  }

  private static int newRank(BalloonType type, Balloon candidate) {
    return type.preferNewBalloons() && candidate != null ? 1 : 0;
  }

  /** With preferPerNamespaceBalloon: the namespace's balloons, then empty ones (a new one counts as empty), then others. */
  private int namespaceRank(BalloonType type, Balloon candidate, String namespace) {
    if (!type.preferPerNamespaceBalloon()) {
      return 0;
    }
    if (candidate == null) {
      return 1;
    }
    BalloonOccupants in = occupants(candidate.name());
    return in.hasNamespace(namespace) ? 0 : in.isEmpty() ? 1 : 2;
  }

  /** The pod's balloons, other balloons, a new one; with preferSpreadingPods: other balloons, a new one, the pod's. */
  private int podRank(BalloonType type, Balloon candidate, String podId) {
    boolean hasPod = candidate != null && occupants(candidate.name()).hasPod(podId);
    if (type.preferSpreadingPods()) {
      return candidate == null ? 1 : hasPod ? 2 : 0;
    }
    return candidate == null ? 2 : hasPod ? 0 : 1;
  }

  private boolean canJoin(Balloon balloon, long milli) {
    long load = occupants(balloon.name()).milli() + milli;
    return balloon.type().holds(load) && balloon.type().cpusFor(load, true) - balloon.cpus().size() <= spare(balloon.type());
  }

  /** A new balloon of {@code type} with {@code count} CPUs. */
  private Balloon create(BalloonType type, int count) {
    int index = 0;
    while (balloons.containsKey(type.name() + "[" + index + "]")) {
      index++;
    }
    Balloon balloon = new Balloon(type.name() + "[" + index + "]", type, picker.pick(type, pool(type), count, CpuSet.EMPTY));
    put(balloon);
    log.info("balloons: created balloon {} on CPUs {}", balloon.name(), balloon.cpus());
    return balloon;
  }

  /** The {@code minBalloons} of every type, highest allocator priority first; too few CPUs for them is a configuration error. */
  private void createMinBalloons() {
    List<BalloonType> ordered = types.values().stream().sorted(byPriority(Function.identity())).toList();
    for (BalloonType type : ordered) {
      while (countOf(type) < type.minBalloons()) {
        if (type.cpusFor(0, false) > spare(type)) {
          throw new CrigateException.InvalidArgument(
              "policy.balloons.balloonTypes[%d].minBalloons: %d balloons of type %s need %d CPUs each; %d CPUs are left for it (reserved: %s)"
                  .formatted(List.copyOf(types.keySet()).indexOf(type.name()), type.minBalloons(), type.name(), type.cpusFor(0, false),
                      spare(type), reserved));
        }
        create(type, type.cpusFor(0, false));
      }
    }
  }

  private int countOf(BalloonType type) {
    int count = 0;
    for (Balloon balloon : balloons.values()) {
      if (balloon.type().name().equals(type.name())) {
        count++;
      }
    }
    return count;
  }

  /**
   * Gives a balloon the size its containers need. One without containers is removed and its CPUs
   * freed, unless its type keeps that many balloons ({@code minBalloons}); then it keeps its minimum
   * ({@code minCPUs}, which may be none).
   */
  private void resize(String name) {
    Balloon balloon = balloons.get(name);
    BalloonOccupants in = occupants(name);
    if (in.isEmpty() && countOf(balloon.type()) > balloon.type().minBalloons()) {
      balloons.remove(name);
      taken = taken.minus(balloon.cpus());
      announced.remove(name);
      writes.remove(CPUS + name);
      store.remove(CPUS + name);
      cpuClasses.assign(balloon.cpus(), "");
      log.info("balloons: balloon {} is empty and released CPUs {}", name, balloon.cpus());
      return;
    }
    BalloonType type = balloon.type();
    int need = type.cpusFor(in.milli(), !in.isEmpty());
    int size = balloon.cpus().size();
    CpuSet cpus = balloon.cpus();
    if (need > size) {
      cpus = cpus.union(picker.pick(type, pool(type), Math.min(need - size, spare(type)), cpus));
    } else if (need < size) {
      cpus = picker.pick(type, cpus, need, CpuSet.EMPTY);
    }
    if (!cpus.equals(balloon.cpus())) {
      put(new Balloon(name, balloon.type(), cpus));
      log.info("balloons: balloon {} now has CPUs {} for {} mCPU", name, cpus, in.milli());
    }
  }

  private void put(Balloon balloon) {
    Balloon old = balloons.put(balloon.name(), balloon);
    CpuSet before = old == null ? CpuSet.EMPTY : old.cpus();
    taken = taken.minus(before).union(balloon.cpus());
    writes.put(CPUS + balloon.name(), balloon.cpus().toString().getBytes(StandardCharsets.UTF_8));
    cpuClasses.assign(balloon.cpus().minus(before), balloon.type().cpuClass());
    cpuClasses.assign(before.minus(balloon.cpus()), "");
  }

  /** The CPUs a balloon of {@code type} may take: the free ones, and the free isolated ones if it prefers them. */
  private CpuSet pool(BalloonType type) {
    return type.preferIsolCpus() ? free().union(freeIsolated()) : free();
  }

  private CpuSet free() {
    return usable.minus(taken);
  }

  private CpuSet freeIsolated() {
    return usableIsolated.minus(taken);
  }

  /**
   * Free CPUs balloons of {@code type} may still take. Without reserved CPUs to fall back on, the
   * default balloon keeps one while containers run in it (or in the reserved balloon, which then
   * is the default). Types preferring isolated CPUs may take the free isolated ones as well.
   */
  private int spare(BalloonType type) {
    boolean defaultNeedsOne = reserved.isEmpty() && (!occupants(DEFAULT).isEmpty() || !occupants(RESERVED).isEmpty());
    int ordinary = Math.max(0, free().size() - (defaultNeedsOne ? 1 : 0));
    return ordinary + (type.preferIsolCpus() ? freeIsolated().size() : 0);
  }

  private CpuSet defaultCpus() {
    CpuSet free = free();
    return free.isEmpty() ? reserved : free;
  }

  private CpuSet reservedBalloonCpus() {
    return reserved.isEmpty() ? defaultCpus() : reserved;
  }

  /** The CPUs a balloon's containers run on: its own, plus the idle CPUs near them it shares ({@code shareIdleCPUsInSame}). */
  private CpuSet cpusOf(String name) {
    return switch (name) {
      case RESERVED -> reservedBalloonCpus();
      case DEFAULT -> defaultCpus();
      default -> {
        Balloon balloon = balloons.get(name);
        yield balloon.type().shareIdleCpusInSame()
            .map(level -> balloon.cpus().union(free().intersect(topology.sameAs(balloon.cpus(), level))))
            .orElse(balloon.cpus());
      }
    };
  }

  private BalloonOccupants occupants(String balloon) {
    return occupants.computeIfAbsent(balloon, name -> new BalloonOccupants());
  }

  private void addMember(ContainerKey key, Member member) {
    members.put(key, member);
    occupants(member.balloon()).add(key, member.podId(), member.namespace(), member.milli());
  }

  private Member removeMember(ContainerKey key) {
    Member member = members.remove(key);
    if (member != null) {
      occupants(member.balloon()).remove(key, member.podId(), member.namespace(), member.milli());
      writes.remove(MEMBER + key);
      store.remove(MEMBER + key);
    }
    return member;
  }

  /** The decision's records in one transaction: a balloon's CPUs and its new member are on disk together or not at all. */
  private void flush() {
    if (!writes.isEmpty()) {
      store.putAll(Map.copyOf(writes));
      writes.clear();
    }
  }

  /**
   * Updates for every placed container with a known id whose CPUs are no longer what it was given:
   * the containers of balloons whose CPUs changed since the last call, and the pending ones.
   */
  private List<ContainerUpdate> changed() {
    List<ContainerUpdate> updates = new ArrayList<>();
    Map<CpuSet, LinuxResources> pins = new HashMap<>();
    List<String> names = new ArrayList<>(balloons.size() + 2);
    names.add(RESERVED);
    names.add(DEFAULT);
    names.addAll(balloons.keySet());
    for (String name : names) {
      BalloonOccupants in = occupants.get(name);
      if (in == null || in.isEmpty()) {
        continue;
      }
      CpuSet cpus = cpusOf(name);
      if (!cpus.equals(announced.put(name, cpus))) {
        in.keys().forEach(key -> check(key, cpus, pins, updates));
      }
    }
    for (ContainerKey key : pending) {
      Member member = members.get(key);
      if (member != null) {
        check(key, cpusOf(member.balloon()), pins, updates);
      }
    }
    pending.clear();
    return updates;
  }

  private void check(ContainerKey key, CpuSet cpus, Map<CpuSet, LinuxResources> pins, List<ContainerUpdate> updates) {
    String id = ids.get(key);
    if (id != null && !cpus.equals(given.get(key))) {
      given.put(key, cpus);
      updates.add(new ContainerUpdate(id, pins.computeIfAbsent(cpus, this::pin), true));
    }
  }

  /** Balloons and members from the store; what no longer fits the configuration or machine is dropped. */
  private void restore() {
    StoredCpus.restore(store, CPUS, "balloons policy: balloon", CpuSet::parse, cpus -> cpus,
        (name, cpus) -> {
          BalloonType type = typeOf(name);
          return type == null ? null : type.preferIsolCpus() ? usable.union(usableIsolated) : usable;
        },
        (name, cpus) -> {
          balloons.put(name, new Balloon(name, typeOf(name), cpus));
          taken = taken.union(cpus);
        });
    for (var entry : store.entries().entrySet()) {
      if (entry.getKey().startsWith(MEMBER)) {
        Member member = Member.decode(new String(entry.getValue(), StandardCharsets.UTF_8));
        if (member.balloon().equals(RESERVED) || member.balloon().equals(DEFAULT) || balloons.containsKey(member.balloon())) {
          addMember(ContainerKeys.parse(entry.getKey().substring(MEMBER.length())), member);
        } else {
          store.remove(entry.getKey()); // placed again by synchronize
        }
      }
    }
  }

  /** The configured type of a balloon named {@code <type>[<n>]}, null if there is none any more. */
  private BalloonType typeOf(String balloonName) {
    return types.get(balloonName.substring(0, Math.max(0, balloonName.lastIndexOf('['))));
  }

  private List<String> allTypeNames() {
    List<String> names = new ArrayList<>(List.of(RESERVED, DEFAULT));
    names.addAll(types.keySet());
    return names;
  }

  private static <T> Comparator<T> byPriority(Function<T, BalloonType> type) {
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

package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.DurableStore;
import io.crigate.spi.adjust.AdjustmentPlugin;
import io.crigate.topology.CpuTopology;
import java.util.LinkedHashMap;
import java.util.Map;

/** Every policy crigate offers, by name: the one explicit registry (no classpath scanning). */
public final class Policies {

  /** Builds one policy from its settings. */
  @FunctionalInterface
  interface Factory {
    AdjustmentPlugin create(PolicySettings settings, CpuTopology topology, DurableStore store);
  }

  record Entry(String description, Factory factory) {}

  static final Map<String, Entry> ALL = registry();

  private Policies() {}

  /** Policy name → one-line description, in the order {@code crigate policies} lists them. */
  public static Map<String, String> descriptions() {
    Map<String, String> out = new LinkedHashMap<>();
    ALL.forEach((name, entry) -> out.put(name, entry.description()));
    return out;
  }

  /**
   * The policy a {@code policy} section names, on {@code topology}, keeping its state in {@code store}:
   * one policy without the live layers of {@link ActivePolicy}, as the benchmarks drive it.
   *
   * @throws io.crigate.spi.CrigateException.InvalidArgument naming the field of a bad section
   */
  public static AdjustmentPlugin create(JsonNode section, CpuTopology topology, DurableStore store) {
    return create(PolicySettings.read(section, ALL.keySet(), topology), topology, store);
  }

  /** The policy sees only its available CPUs, so none of them places anything elsewhere. */
  static AdjustmentPlugin create(PolicySettings settings, CpuTopology topology, DurableStore store) {
    return ALL.get(settings.active()).factory().create(settings, topology.restrictedTo(settings.availableCpus()), store);
  }

  private static Map<String, Entry> registry() {
    Map<String, Entry> all = new LinkedHashMap<>();
    all.put("none", new Entry("the default: nothing is changed; containers pinned before get every CPU again",
        (settings, topology, store) -> new NonePolicy(topology)));
    all.put("static", new Entry("kubelet CPU manager static semantics: exclusive whole CPUs for Guaranteed containers with integer requests, a shared pool for the rest",
        (settings, topology, store) -> new StaticPolicy("static", false, topology, settings.reservedCpus(), store)));
    all.put("static-plus", new Entry("static, plus isolated CPUs first for single-CPU exclusive containers and an annotation that lets Burstable containers opt in",
        (settings, topology, store) -> new StaticPolicy("static-plus", true, topology, settings.reservedCpus(), store)));
    all.put("topology-aware", new Entry("a pool tree (machine, sockets, dies, NUMA nodes): each container in the smallest pool that fits, exclusive CPUs for Guaranteed ones, memory follows the CPUs",
        (settings, topology, store) -> new TopologyAwarePolicy(topology, settings.reservedCpus(), store)));
    all.put("balloons", new Entry("balloon types: containers share the CPUs of their balloon, chosen by annotation or namespace; balloons grow and shrink with their containers' requests",
        (settings, topology, store) -> new BalloonsPolicy(topology, settings.reservedCpus(), settings.balloons(), store,
            settings.sysfsRoot())));
    return all;
  }
}

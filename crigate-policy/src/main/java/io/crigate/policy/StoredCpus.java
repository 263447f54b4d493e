package io.crigate.policy;

import io.crigate.spi.DurableStore;
import io.crigate.topology.CpuSet;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CPUs a policy gave out, read back from its store when it starts (a restart, or a live switch back
 * to it). The machine or the configuration may have changed meanwhile: reserved or available CPUs,
 * the balloon types. An entry that no longer fits is removed with one log line, and the policy's
 * next synchronize places its owner again, so a container never keeps CPUs that are reserved or
 * given to another.
 */
final class StoredCpus {

  private static final Logger log = LoggerFactory.getLogger(StoredCpus.class);

  private StoredCpus() {}

  /**
   * Hands {@code keep} every entry under {@code prefix}, in key order, whose CPUs are within what it
   * is allowed and not claimed by an entry kept before it; removes the others.
   *
   * @param what the entries' owner in the log line, such as {@code "static policy: container"}
   * @param allowed the CPUs an entry may hold, given its key after the prefix and its value; null
   *     when the entry fits nothing any more (a balloon whose type is no longer configured)
   */
  static <T> void restore(DurableStore store, String prefix, String what, Function<String, T> decode,
      Function<T, CpuSet> cpusOf, BiFunction<String, T, CpuSet> allowed, BiConsumer<String, T> keep) {
    CpuSet taken = CpuSet.EMPTY;
    for (Map.Entry<String, byte[]> entry : store.entries().entrySet()) {
      if (!entry.getKey().startsWith(prefix)) {
        continue;
      }
      String name = entry.getKey().substring(prefix.length());
      T value = decode.apply(new String(entry.getValue(), StandardCharsets.UTF_8));
      CpuSet cpus = cpusOf.apply(value);
      CpuSet may = allowed.apply(name, value);
      String lost = may == null ? "its type is no longer configured"
          : !may.containsAll(cpus) ? "no longer among the usable " + may
          : taken.intersects(cpus) ? "no longer free" : null;
      if (lost == null) {
        keep.accept(name, value);
        taken = taken.union(cpus);
      } else {
        store.remove(entry.getKey());
        log.info("{} {} loses CPUs {}, {}", what, name, cpus, lost);
      }
    }
  }
}

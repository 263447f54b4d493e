package io.crigate.policy;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.topology.CpuSet;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StoredCpusTest {

  private final MemoryStore store = new MemoryStore();
  private final Map<String, CpuSet> kept = new LinkedHashMap<>();

  private void put(String key, String cpus) {
    store.put(key, cpus.getBytes(StandardCharsets.UTF_8));
  }

  private void restore(CpuSet usable) {
    StoredCpus.restore(store, "x/", "test policy: container", CpuSet::parse, cpus -> cpus, (name, cpus) -> usable, kept::put);
  }

  @Test
  void entriesThatFitAreKeptInKeyOrderAndOtherPrefixesAreLeftAlone() {
    put("x/b", "3");
    put("x/a", "1-2");
    put("y/a", "1-2");

    restore(CpuSet.parse("1-7"));

    assertThat(kept).containsExactly(Map.entry("a", CpuSet.parse("1-2")), Map.entry("b", CpuSet.parse("3")));
    assertThat(store.entries()).containsOnlyKeys("x/a", "x/b", "y/a");
  }

  @Test
  void anEntryClaimingCpusAnEarlierOneKeptIsRemovedAndSaysSo() throws Exception {
    put("x/a", "1-2");
    put("x/b", "2-3");

    assertThat(LogLines.of(StoredCpus.class, () -> restore(CpuSet.parse("1-7"))))
        .containsExactly("test policy: container b loses CPUs 2-3, no longer free");
    assertThat(kept).containsOnlyKeys("a");
    assertThat(store.entries()).containsOnlyKeys("x/a");
  }

  @Test
  void anEntryOutsideTheUsableCpusIsRemovedAndLeavesItsCpusToTheNext() throws Exception {
    put("x/a", "0-1");
    put("x/b", "1");

    assertThat(LogLines.of(StoredCpus.class, () -> restore(CpuSet.parse("1-7"))))
        .containsExactly("test policy: container a loses CPUs 0-1, no longer among the usable 1-7");
    assertThat(kept).containsExactly(Map.entry("b", CpuSet.parse("1")));
    assertThat(store.entries()).containsOnlyKeys("x/b");
  }
}

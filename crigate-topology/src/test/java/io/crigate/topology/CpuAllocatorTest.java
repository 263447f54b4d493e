package io.crigate.topology;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CpuAllocatorTest {

  record Case(String name, String fixture, String available, int count, String expected) {}

  static Stream<Case> cases() {
    return Stream.of(
        new Case("no smt: lowest cpus", "1-socket-4-core-nosmt", "1-3", 2, "1-2"),
        // core 0 = {0,8}: a whole core before anything else
        new Case("smt: whole core", "2-socket-16-cpu-smt", "1-15", 2, "1,9"),
        // 1 needs a thread: 8's sibling 0 is taken, so 8 goes first and whole cores stay whole
        new Case("smt: thread of a used core first", "2-socket-16-cpu-smt", "1-15", 1, "8"),
        // a whole socket (4-7,12-15 = socket 1) when the request covers it
        new Case("whole socket", "2-socket-16-cpu-smt", "1-15", 8, "4-7,12-15"),
        // socket 0 has 7 free (1-3,8-11), socket 1 has 8: the tighter socket 0, its whole cores {1,9},{2,10}
        new Case("tightest socket that fits", "2-socket-16-cpu-smt", "1-15", 4, "1-2,9-10"),
        // node 0 = 0-3,16-19 partially used; node 1 (4-7,20-23) is whole and fits 8 exactly
        new Case("whole numa node", "2-socket-4-node-32-cpu-smt", "1-31", 8, "4-7,20-23"),
        new Case("within one numa node", "2-socket-4-node-32-cpu-smt", "1-31", 2, "1,17"),
        new Case("isolated set given", "1-socket-8-core-isolated-6-7", "6-7", 1, "6"),
        // cpu 3's core is offline entirely; core 2 = {2,10}
        new Case("offline cpus never chosen", "2-socket-16-cpu-smt-offline-3-11", "0-15", 6, "0-2,8-10"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void allocates(Case c) {
    CpuAllocator allocator = new CpuAllocator(Fixtures.topology(c.fixture()));
    assertThat(allocator.allocate(CpuSet.parse(c.available()), c.count())).hasToString(c.expected());
  }

  record SpreadCase(String name, String fixture, String available, int count, String alongside, String spread, String packed) {}

  static Stream<SpreadCase> spreadCases() {
    return Stream.of(
        // two cores untouched by anyone (0 is not available, so 8's core is someone else's) against one whole core
        new SpreadCase("one thread of two cores", "2-socket-16-cpu-smt", "1-15", 2, "", "1-2", "1,9"),
        // every core of the tightest socket once (8 last: its sibling is in use), then a second thread
        new SpreadCase("every core once first", "2-socket-16-cpu-smt", "1-15", 4, "", "1-3,8", "1-2,9-10"),
        new SpreadCase("then second threads", "2-socket-16-cpu-smt", "1-15", 5, "", "1-3,8-9", "1-2,8-10"),
        // growing a set that has 1: not 9, its own core's sibling
        new SpreadCase("a core the set has already goes last", "2-socket-16-cpu-smt", "2-15", 1, "1", "2", "8"),
        new SpreadCase("within the tightest node", "2-socket-4-node-32-cpu-smt", "1-31", 2, "", "1-2", "1,17"),
        new SpreadCase("no smt: the same as packing", "1-socket-4-core-nosmt", "1-3", 2, "", "1-2", "1-2"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("spreadCases")
  void spreadsOverPhysicalCores(SpreadCase c) {
    CpuAllocator allocator = new CpuAllocator(Fixtures.topology(c.fixture()));
    assertThat(allocator.allocateSpread(CpuSet.parse(c.available()), c.count(), CpuSet.parse(c.alongside()))).hasToString(c.spread());
    assertThat(allocator.allocate(CpuSet.parse(c.available()), c.count())).hasToString(c.packed());
  }

  @Test
  void tooManyIsAClearError() {
    CpuAllocator allocator = new CpuAllocator(Fixtures.topology("1-socket-4-core-nosmt"));
    assertThatThrownBy(() -> allocator.allocate(CpuSet.parse("0-1"), 3))
        .isInstanceOf(CpuAllocator.InsufficientCpus.class).hasMessage("not enough free CPUs: 3 requested, 2 free (0-1)");
  }

  /** Property: any request that fits returns exactly that many CPUs, all from the available ones. */
  @Test
  void alwaysExactlyTheCountFromTheAvailable() {
    Random random = new Random(12);
    for (String fixture : new String[] {"2-socket-16-cpu-smt", "2-socket-4-node-32-cpu-smt", "2-socket-16-cpu-smt-offline-3-11",
        "1-socket-hybrid-4p-smt-8e"}) {
      CpuTopology topology = Fixtures.topology(fixture);
      CpuAllocator allocator = new CpuAllocator(topology);
      for (int round = 0; round < 500; round++) {
        CpuSet available = CpuSet.of(topology.online().stream().filter(cpu -> random.nextInt(3) > 0));
        int count = random.nextInt(available.size() + 1);
        for (CpuSet got : new CpuSet[] {allocator.allocate(available, count), allocator.allocateSpread(available, count, CpuSet.EMPTY)}) {
          assertThat(got.size()).as("%s from %s", count, available).isEqualTo(count);
          assertThat(available.containsAll(got)).as("%s within %s", got, available).isTrue();
        }
      }
    }
  }
}

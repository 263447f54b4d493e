package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class NodeNumbersTest {

  /**
   * Random puts, re-puts and removes over a small name space (long probe chains, removals inside
   * them, growth) answer every lookup as a {@code HashMap} does, also for names never added and
   * for equal Strings that are not the stored instance.
   */
  @Test
  void answersAsAHashMapUnderRandomPutsAndRemoves() {
    for (long seed = 1; seed <= 20; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      int space = 50 + random.nextInt(3000);
      List<String> names = new ArrayList<>();
      for (int i = 0; i < space; i++) {
        names.add("ip-10-0-%d-%d.compute.internal".formatted(i / 256, i % 256));
      }
      NodeNumbers table = new NodeNumbers();
      Map<String, Integer> expected = new HashMap<>();
      for (int op = 0; op < 20 * space; op++) {
        String name = names.get(random.nextInt(space));
        if (random.nextInt(3) == 0) {
          table.remove(name);
          expected.remove(name);
        } else {
          int number = random.nextInt(1 << 20);
          table.put(name, number);
          expected.put(name, number);
        }
        if (op % 97 == 0) {
          assertSame(table, expected, names, seed);
        }
      }
      assertSame(table, expected, names, seed);
    }
  }

  private static void assertSame(NodeNumbers table, Map<String, Integer> expected, List<String> names, long seed) {
    assertThat(table.size()).as("seed %d", seed).isEqualTo(expected.size());
    for (String name : names) {
      assertThat(table.get(new String(name))).as("seed %d, %s", seed, name).isEqualTo(expected.getOrDefault(name, -1));
    }
    assertThat(table.get("never-added")).isEqualTo(-1);
  }
}

package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.scheduler.NodeLoad;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NodeTableTest {

  /** 5,000 names of one length that differ in a digit or two: long probe chains in a half-full table. */
  final List<String> names = IntStream.range(0, 5000)
      .mapToObj(i -> "ip-10-0-%02d-%02d.eu-west-1.compute.internal".formatted(i / 100, i % 100)).toList();

  static String find(NodeTable table, String name) {
    NodeTable.Entry kept = entry(table, name);
    return kept == null ? null : kept.string();
  }

  static NodeTable.Entry entry(NodeTable table, String name) {
    char[] padded = ("[\"" + name + "\"]").toCharArray(); // as in the parser's buffer: the name at an offset
    return table.find(padded, 2, name.length());
  }

  static List<NodeTable.Entry> kept(List<String> names) {
    return names.stream().map(NodeTable.Entry::new).toList();
  }

  @Test
  void findsEachAddedNameAsTheStringItKeeps() {
    NodeTable table = new NodeTable();
    table.addAll(kept(names.subList(0, 2500)));
    table.addAll(kept(names.subList(2000, 5000))); // overlaps: kept once
    assertThat(table.size()).isEqualTo(5000);
    for (String name : names) {
      assertThat(find(table, new String(name))).as(name).isSameAs(name);
    }
  }

  @Test
  void findsNamesOfEveryLengthAndAnyCharacterByTheirStringHash() {
    // the stepped hash must equal String.hashCode() whatever the length's remainder after its steps of eight
    List<String> varied = IntStream.rangeClosed(1, 70)
        .mapToObj(length -> IntStream.range(0, length).mapToObj(i -> String.valueOf((char) ('a' + (i * 7 + length) % 26)))
            .reduce("", String::concat) + (length % 3 == 0 ? "\u00e9\u4e2d" : "")).toList();
    NodeTable table = new NodeTable();
    table.addAll(kept(varied));
    for (String name : varied) {
      char[] padded = ("xyz" + name + "w").toCharArray();
      assertThat(NodeTable.hash(padded, 3, name.length())).as(name).isEqualTo(name.hashCode());
      assertThat(find(table, new String(name))).as(name).isSameAs(name);
    }
  }

  @Test
  void aNameNotAddedIsNotFoundHoweverCloseToOneThatIs() {
    NodeTable table = new NodeTable();
    table.addAll(kept(names.subList(0, 4000)));
    for (String name : names.subList(4000, 5000)) {
      assertThat(find(table, name)).as(name).isNull();
    }
    assertThat(find(table, "ip-10-0-00-00.eu-west-1.compute.internaL")).isNull();
    assertThat(find(table, "ip-10-0-00-00.eu-west-1.compute.interna")).isNull();
  }

  @Test
  void whenFullItStartsOverWithTheNewNamesAndTheEntriesThatHoldSomething() {
    NodeTable table = new NodeTable();
    table.addAll(kept(IntStream.range(0, NodeTable.MAX_NAMES - 10).mapToObj(i -> "old-" + i).toList()));
    NodeTable.Entry indexed = table.update("old-7", entry -> entry.number = 3);
    NodeTable.Entry loaded = table.update("old-8", entry -> entry.load = new NodeLoad(500, 4000, 2));
    NodeTable.Entry assumedOn = table.update("old-9", entry -> entry.assumed = new NodeLoads.Extra(250, 1));
    table.update("old-10", entry -> entry.load = NodeLoad.UNKNOWN); // a node gone with its pods holds nothing
    table.addAll(kept(names.subList(0, 100)));
    assertThat(table.size()).isEqualTo(103);
    assertThat(find(table, "old-1")).isNull();
    assertThat(find(table, "old-10")).isNull();
    assertThat(find(table, names.get(99))).isSameAs(names.get(99));
    // the same entries, so that a request parsed before the restart still reads what they hold
    assertThat(table.find("old-7")).isSameAs(indexed);
    assertThat(table.find("old-8")).isSameAs(loaded);
    assertThat(table.find("old-9")).isSameAs(assumedOn);
  }

  @Test
  void updateWritesTheEntryTheParserFindsAndKeepsTheFirstStringOfAName() {
    NodeTable table = new NodeTable();
    table.addAll(kept(names.subList(0, 10)));
    NodeTable.Entry known = table.update(new String(names.get(3)), entry -> entry.number = 5);
    assertThat(known.string()).isSameAs(names.get(3));
    assertThat(entry(table, names.get(3))).isSameAs(known);
    assertThat(entry(table, names.get(3)).number).isEqualTo(5);
    String added = new String("node-not-seen");
    assertThat(table.update(added, entry -> { }).string()).isSameAs(added);
    assertThat(find(table, "node-not-seen")).isSameAs(added);
    assertThat(table.size()).isEqualTo(11);
  }

  @Test
  void aNameNotSeenResolvesToAnEntryThatKnowsNothingAndIsNotAdded() {
    NodeTable table = new NodeTable();
    table.addAll(kept(names.subList(0, 10)));
    assertThat(table.resolve(new String(names.get(2))).string()).isSameAs(names.get(2));
    NodeTable.Entry stranger = table.resolve("stranger");
    assertThat(stranger.number).isEqualTo(-1);
    assertThat(stranger.load).isEqualTo(NodeLoad.UNKNOWN);
    assertThat(stranger.assumed).isNull();
    assertThat(table.find("stranger")).isNull();
    assertThat(table.size()).isEqualTo(10);
  }

  @Test
  void namesAddedOneByOneAreAllFoundThroughEveryGrowth() {
    NodeTable table = new NodeTable();
    for (int i = 0; i < names.size(); i++) {
      assertThat(table.update(names.get(i), entry -> { }).string()).isSameAs(names.get(i));
      assertThat(find(table, names.get(i / 2))).as("after %d names", i + 1).isSameAs(names.get(i / 2));
      assertThat(table.find(new String(names.get(i / 3)))).as("after %d names", i + 1).isNotNull();
    }
    assertThat(table.size()).isEqualTo(names.size());
    for (String name : names) {
      assertThat(find(table, name)).as(name).isSameAs(name);
    }
  }

  /**
   * Each kept name carries the start of its prioritize answer entry, as Jackson's generator writes
   * an object with the name as Host before the Score: escapes, UTF-8 and surrogates (paired or not) included.
   */
  @Test
  void eachNameKeepsItsAnswerEntryAsTheGeneratorWritesIt() throws Exception {
    var mapper = new ObjectMapper();
    List<String> odd = List.of("node-\"quoted\"", "back\\slash", "tab\there", "nul\u0000end", "nœud-é", "plain",
        "node-\uD83D\uDE80", "lone-\uD800", "</script>");
    NodeTable table = new NodeTable();
    table.addAll(kept(odd));
    for (String name : odd) {
      byte[] object = mapper.writeValueAsBytes(new LinkedHashMap<>(Map.of("Host", name)));
      String written = new String(object, StandardCharsets.UTF_8);
      byte[] start = (written.substring(0, written.length() - 1) + ",\"Score\":").getBytes(StandardCharsets.UTF_8);
      assertThat(entry(table, name).hostEntry()).as(name).isEqualTo(start);
    }
  }
}

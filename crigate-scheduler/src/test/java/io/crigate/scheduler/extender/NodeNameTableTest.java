package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class NodeNameTableTest {

  /** 5,000 names of one length that differ in a digit or two: long probe chains in a half-full table. */
  final List<String> names = IntStream.range(0, 5000)
      .mapToObj(i -> "ip-10-0-%02d-%02d.eu-west-1.compute.internal".formatted(i / 100, i % 100)).toList();

  static String find(NodeNameTable table, String name) {
    NodeNameTable.Name kept = entry(table, name);
    return kept == null ? null : kept.string();
  }

  static NodeNameTable.Name entry(NodeNameTable table, String name) {
    char[] padded = ("[\"" + name + "\"]").toCharArray(); // as in the parser's buffer: the name at an offset
    return table.find(padded, 2, name.length());
  }

  static List<NodeNameTable.Name> kept(List<String> names) {
    return names.stream().map(NodeNameTable.Name::new).toList();
  }

  @Test
  void findsEachAddedNameAsTheStringItKeeps() {
    NodeNameTable table = new NodeNameTable();
    table.addAll(kept(names.subList(0, 2500)));
    table.addAll(kept(names.subList(2000, 5000))); // overlaps: kept once
    assertThat(table.size()).isEqualTo(5000);
    for (String name : names) {
      assertThat(find(table, new String(name))).as(name).isSameAs(name);
    }
  }

  @Test
  void aNameNotAddedIsNotFoundHoweverCloseToOneThatIs() {
    NodeNameTable table = new NodeNameTable();
    table.addAll(kept(names.subList(0, 4000)));
    for (String name : names.subList(4000, 5000)) {
      assertThat(find(table, name)).as(name).isNull();
    }
    assertThat(find(table, "ip-10-0-00-00.eu-west-1.compute.internaL")).isNull();
    assertThat(find(table, "ip-10-0-00-00.eu-west-1.compute.interna")).isNull();
  }

  @Test
  void whenFullItStartsOverWithTheNewNames() {
    NodeNameTable table = new NodeNameTable();
    table.addAll(kept(IntStream.range(0, NodeNameTable.MAX_NAMES - 10).mapToObj(i -> "old-" + i).toList()));
    table.addAll(kept(names.subList(0, 100)));
    assertThat(table.size()).isEqualTo(100);
    assertThat(find(table, "old-1")).isNull();
    assertThat(find(table, names.get(99))).isSameAs(names.get(99));
  }

  @Test
  void internKeepsTheFirstStringOfAName() {
    NodeNameTable table = new NodeNameTable();
    table.addAll(kept(names.subList(0, 10)));
    assertThat(table.intern(new String(names.get(3)))).isSameAs(names.get(3));
    String added = new String("node-not-seen");
    assertThat(table.intern(added)).isSameAs(added);
    assertThat(find(table, "node-not-seen")).isSameAs(added);
    assertThat(table.size()).isEqualTo(11);
  }

  @Test
  void namesInternedOneByOneAreAllFoundThroughEveryGrowth() {
    NodeNameTable table = new NodeNameTable();
    for (int i = 0; i < names.size(); i++) {
      assertThat(table.intern(names.get(i))).isSameAs(names.get(i));
      assertThat(find(table, names.get(i / 2))).as("after %d names", i + 1).isSameAs(names.get(i / 2));
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
    NodeNameTable table = new NodeNameTable();
    table.addAll(kept(odd));
    for (String name : odd) {
      byte[] object = mapper.writeValueAsBytes(new LinkedHashMap<>(Map.of("Host", name)));
      String written = new String(object, StandardCharsets.UTF_8);
      byte[] start = (written.substring(0, written.length() - 1) + ",\"Score\":").getBytes(StandardCharsets.UTF_8);
      assertThat(entry(table, name).hostEntry().asUnquotedUTF8()).as(name).isEqualTo(start);
    }
  }
}

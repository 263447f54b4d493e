package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.cli.ctl.CriLogDecoder.LogLine;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CriLogDecoderTest {

  private static final String T1 = "2026-11-22T00:41:20.931539145Z";
  private static final String T2 = "2026-11-22T00:41:21.000000001Z";

  record Case(String name, List<String> chunks, List<LogLine> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case(
            "full lines keep content with spaces, drop the prefix",
            List.of(T1 + " stdout F hello  world\n" + T2 + " stderr F oops\n"),
            List.of(new LogLine(T1, "stdout", "hello  world"), new LogLine(T2, "stderr", "oops"))),
        // a long line split by the runtime: P records join until the F record, timestamp of the last
        new Case(
            "partial records reassemble",
            List.of(T1 + " stdout P abc\n" + T1 + " stdout P def\n" + T2 + " stdout F ghi\n"),
            List.of(new LogLine(T2, "stdout", "abcdefghi"))),
        new Case(
            "partials of stdout and stderr interleave independently",
            List.of(
                T1 + " stdout P out-1 \n"
                    + T1 + " stderr P err-1 \n"
                    + T2 + " stderr F err-2\n"
                    + T2 + " stdout F out-2\n"),
            List.of(
                new LogLine(T2, "stderr", "err-1 err-2"), new LogLine(T2, "stdout", "out-1 out-2"))),
        new Case(
            "a record cut between reads waits for its newline",
            List.of(T1 + " stdout F hal", "f a line\n" + T2 + " stdout F next", "\n"),
            List.of(new LogLine(T1, "stdout", "half a line"), new LogLine(T2, "stdout", "next"))),
        new Case(
            "an empty line has no content field",
            List.of(T1 + " stdout F\n" + T2 + " stdout F \n"),
            List.of(new LogLine(T1, "stdout", ""), new LogLine(T2, "stdout", ""))),
        new Case(
            "tag with extra flags: first letter decides",
            List.of(T1 + " stdout P:x a\n" + T2 + " stdout F:x b\n"),
            List.of(new LogLine(T2, "stdout", "ab"))),
        new Case(
            "a line that is not a CRI record is shown as is",
            List.of("garbage\n"),
            List.of(new LogLine("", "stdout", "garbage"))),
        new Case(
            "an unfinished last record is not emitted",
            List.of(T1 + " stdout F done\n" + T2 + " stdout F still writ"),
            List.of(new LogLine(T1, "stdout", "done"))),
        new Case(
            "multi-byte UTF-8 split across reads",
            List.of(T1 + " stdout F gr\u00fc", "\u00dfe\n"),
            List.of(new LogLine(T1, "stdout", "gr\u00fc\u00dfe"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void decodesCriLogRecords(Case c) {
    CriLogDecoder decoder = new CriLogDecoder();
    List<LogLine> lines = new ArrayList<>();

    for (String chunk : c.chunks()) {
      byte[] bytes = chunk.getBytes(StandardCharsets.UTF_8);
      lines.addAll(decoder.feed(bytes, bytes.length));
    }

    assertThat(lines).containsExactlyElementsOf(c.expected());
  }
}

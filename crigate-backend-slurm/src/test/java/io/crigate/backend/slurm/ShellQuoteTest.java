package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ShellQuoteTest {

  record Case(String name, String value, String quoted) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("plain word", "abc", "'abc'"),
        new Case("empty string stays an argument", "", "''"),
        // the quote closes, an escaped quote follows, and a new quote opens: ' -> '\''
        new Case("single quote", "it's", "'it'\\''s'"),
        new Case("command substitution is inert", "$(id)", "'$(id)'"),
        new Case("backticks are inert", "`id`", "'`id`'"),
        new Case("newline is kept literally", "a\nb", "'a\nb'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void quotes(Case c) {
    assertThat(ShellQuote.quote(c.value())).isEqualTo(c.quoted());
  }

  static Stream<String> hostile() {
    return Stream.of("$(touch /tmp/x)", "`id`", "'\"'\"'", "; exit 3", "a\nb\n", "\\", "ünïcødé ☃", "*", "$HOME", " ");
  }

  /** A real /bin/sh splits the joined line back into exactly the original words. */
  @ParameterizedTest(name = "{0}")
  @MethodSource("hostile")
  void shellSeesTheOriginalBytes(String value) throws Exception {
    String line = "printf '%s\\0' " + ShellQuote.join(List.of(value, "second"));
    Process sh = new ProcessBuilder("/bin/sh", "-c", line).start();
    byte[] out = sh.getInputStream().readAllBytes();
    assertThat(sh.waitFor()).isZero();
    assertThat(new String(out, StandardCharsets.UTF_8)).isEqualTo(value + "\0second\0");
  }
}

package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SbatchOptionsTest {

  record Case(String name, String flags, List<String> argv) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> parsed() {
    return Stream.of(
        new Case("long with value", "--time=10", List.of("--time=10")),
        new Case("flag without value", "--exclusive", List.of("--exclusive")),
        new Case("short with separate value", "-p debug -c 2", List.of("--partition=debug", "--cpus-per-task=2")),
        new Case("short with joined value", "-N2", List.of("--nodes=2")),
        // sbatch takes unique prefixes; crigate resolves them and hands sbatch the full name
        new Case("abbreviated long option", "--part=debug --cpus-per-t=2", List.of("--partition=debug", "--cpus-per-task=2")),
        // the later --time replaces the earlier one and moves to the end
        new Case("later wins", "--time=5 --qos=low --time=9", List.of("--qos=low", "--time=9")),
        new Case("blank", "   ", List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("parsed")
  void parses(Case c) {
    assertThat(SbatchOptions.parse("test", ShellWords.split("test", c.flags())).argv()).isEqualTo(c.argv());
  }

  record Refusal(String flags, String named) {
    @Override
    public String toString() {
      return flags;
    }
  }

  /** Issue 16 item 4: reserved options, also abbreviated, and sbatch options outside the allow-list. */
  static Stream<Refusal> refused() {
    return Stream.of(
        new Refusal("--output=/etc/passwd", "--output"), new Refusal("--job-name=evil", "--job-name"),
        new Refusal("--comment=x", "--comment"), new Refusal("--chdir=/", "--chdir"),
        new Refusal("--export=ALL", "--export"), new Refusal("--wrap=id", "--wrap"),
        new Refusal("--job-nam=evil", "--job-nam (--job-name)"), new Refusal("--outp=/etc/passwd", "--outp (--output)"),
        new Refusal("--chd=/", "--chd (--chdir)"), new Refusal("--arr=0-9999", "--arr (--array)"),
        new Refusal("--export-file=/etc/shadow", "--export-file"), new Refusal("--expo=ALL", "--expo"),
        new Refusal("--clusters=other", "--clusters"), new Refusal("--uid=0", "--uid"),
        new Refusal("--input=/etc/shadow", "--input"), new Refusal("--wait", "--wait"),
        new Refusal("--no-such-option=1", "--no-such-option"), new Refusal("--=x", "--="),
        new Refusal("-o x", "-o"), new Refusal("stray", "stray"), new Refusal("-p", "-p"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusesReservedUnlistedOrMalformedNamingTheOption(Refusal c) {
    assertThatThrownBy(() -> SbatchOptions.parse("annotation", ShellWords.split("test", c.flags())))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageStartingWith("annotation: ")
        .hasMessageContaining(c.named());
  }
}

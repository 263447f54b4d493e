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
        // the later --time replaces the earlier one and moves to the end
        new Case("later wins", "--time=5 --qos=low --time=9", List.of("--qos=low", "--time=9")),
        new Case("blank", "   ", List.of()));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("parsed")
  void parses(Case c) {
    assertThat(SbatchOptions.parse("test", SbatchOptions.words(c.flags())).argv()).isEqualTo(c.argv());
  }

  static Stream<String> refused() {
    return Stream.of("--output=/etc/passwd", "-o x", "--job-name=evil", "--comment=x", "--chdir=/", "--export=ALL",
        "stray", "-p", "--wrap=id");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("refused")
  void refusesReservedOrMalformed(String flags) {
    assertThatThrownBy(() -> SbatchOptions.parse("annotation", SbatchOptions.words(flags)))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageStartingWith("annotation: ");
  }
}

package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException.InvalidArgument;
import io.crigate.spi.CrigateException.NotFound;
import java.util.List;
import org.junit.jupiter.api.Test;

class IdPrefixTest {

  private static final List<String> IDS = List.of("abc123", "abd456", "ab", "f00");

  @Test
  void uniquePrefixResolvesToFullId() {
    assertThat(IdPrefix.resolve("pod", "abc", IDS)).isEqualTo("abc123");
    assertThat(IdPrefix.resolve("pod", "f", IDS)).isEqualTo("f00");
  }

  @Test
  void exactIdWinsOverLongerIdsSharingIt() {
    assertThat(IdPrefix.resolve("pod", "ab", IDS)).isEqualTo("ab");
  }

  @Test
  void ambiguousPrefixNamesEveryCandidate() {
    assertThatThrownBy(() -> IdPrefix.resolve("container", "a", IDS))
        .isInstanceOf(InvalidArgument.class)
        .hasMessage("container id prefix a is ambiguous, it matches ab, abc123, abd456");
  }

  @Test
  void unknownPrefixIsNotFound() {
    assertThatThrownBy(() -> IdPrefix.resolve("pod", "zz", IDS))
        .isInstanceOf(NotFound.class)
        .hasMessage("no pod id starts with zz");
  }

  @Test
  void emptyPrefixIsRefusedRatherThanMatchingEverything() {
    assertThatThrownBy(() -> IdPrefix.resolve("pod", "", IDS))
        .isInstanceOf(InvalidArgument.class)
        .hasMessage("empty pod id");
  }
}

package io.crigate.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantityTest {

  @ParameterizedTest(name = "{0} = {1}")
  @CsvSource({
      "1000, 1000",
      "1Gi, 1073741824",       // 2^30
      "512Mi, 536870912",      // 2^29
      "2k, 2000",
      "1e3, 1000",
      "1.5, 2",                // rounded up, as Kubernetes' Value()
      "500m, 1",               // 0.5 rounded up
  })
  void whole(String text, long expected) {
    assertThat(Quantity.whole(text)).isEqualTo(expected);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "lots", "1Xi", "--1"})
  void rejectsNonQuantities(String text) {
    assertThatThrownBy(() -> Quantity.parse(text)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(text);
  }
}

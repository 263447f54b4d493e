package io.crigate.spi.config;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalInt;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PortNumberTest {

  @ParameterizedTest(name = "{0}")
  @CsvSource({"-1,false", "0,true", "1,true", "65535,true", "65536,false"})
  void listenableTakesZeroToTheLastPort(long port, boolean listenable) {
    assertThat(PortNumber.listenable(port)).isEqualTo(listenable);
  }

  @ParameterizedTest(name = "''{0}'' from {1}")
  @CsvSource(delimiter = '|', value = {" 22 |1|22", "0|0|0", "0|1|", "65535|1|65535", "65536|0|", "ssh|1|", "2.5|1|", "''|1|"})
  void parseTakesANumberInRangeAndNothingElse(String text, int lowest, Integer expected) {
    assertThat(PortNumber.parse(text, lowest)).isEqualTo(expected == null ? OptionalInt.empty() : OptionalInt.of(expected));
  }
}

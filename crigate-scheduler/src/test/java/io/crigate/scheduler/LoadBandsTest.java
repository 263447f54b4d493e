package io.crigate.scheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class LoadBandsTest {

  /** At the default trace's mean utilization the bands are about the fixed ones they replace (0.11 and 0.03). */
  @Test
  void atTheDefaultTracesLoadTheBandsAreAboutTheOldFixedOnes() {
    LoadBands bands = LoadBands.around(0.616);
    assertThat(bands.aboveMean()).isCloseTo(0.136, within(0.001));
    assertThat(bands.aboveNode()).isCloseTo(0.031, within(0.001));
  }

  /** Twice the load, twice the bands: the same relative spread, which is what the CV measures. */
  @ParameterizedTest
  @ValueSource(doubles = {0.1, 0.3, 0.45})
  void bandsScaleWithTheMeanLoad(double mean) {
    LoadBands once = LoadBands.around(mean);
    LoadBands twice = LoadBands.around(2 * mean);
    assertThat(twice.aboveMean()).isCloseTo(2 * once.aboveMean(), within(1e-12));
    assertThat(twice.aboveNode()).isCloseTo(2 * once.aboveNode(), within(1e-12));
    assertThat(once.aboveNode()).isLessThan(once.aboveMean());
  }

  /** An idle cluster has no band: only a node no busier than another is its alternative. */
  @Test
  void anIdleClusterHasNoBand() {
    assertThat(LoadBands.around(0)).isEqualTo(new LoadBands(0, 0));
  }

  @Test
  void aNegativeOrUndefinedMeanIsRejected() {
    assertThatThrownBy(() -> LoadBands.around(-0.1)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("-0.1");
    assertThatThrownBy(() -> LoadBands.around(Double.NaN)).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("NaN");
  }
}

package io.crigate.hooks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class ListScheduleTest {

  private static final ListSchedule SCHEDULE = new ListSchedule(Duration.ofSeconds(1), Duration.ofMillis(250));

  @Test
  void listsAtTheBusyPeriodWhileContainersAppearedWithinTheIdlePeriod() {
    assertThat(SCHEDULE.interval(Duration.ofMillis(900), Duration.ZERO)).isEqualTo(Duration.ofMillis(250));
    assertThat(SCHEDULE.interval(Duration.ofSeconds(1), Duration.ZERO)).isEqualTo(Duration.ofSeconds(1));
  }

  @Test
  void theLastListsWorkIsTakenOffTheIntervalSoWaitPlusWorkStaysWithinThePeriod() {
    assertThat(SCHEDULE.interval(Duration.ofSeconds(5), Duration.ofMillis(70))).isEqualTo(Duration.ofMillis(930));
    assertThat(SCHEDULE.interval(Duration.ZERO, Duration.ofMillis(70))).isEqualTo(Duration.ofMillis(180));
  }

  @Test
  void workLongerThanThePeriodStillLeavesAGapBetweenLists() {
    assertThat(SCHEDULE.interval(Duration.ZERO, Duration.ofSeconds(3))).isEqualTo(ListSchedule.MIN_INTERVAL);
  }

  @Test
  void aFixedScheduleIgnoresWhetherContainersAppear() {
    ListSchedule fixed = ListSchedule.fixed(Duration.ofSeconds(1));

    assertThat(fixed.interval(Duration.ZERO, Duration.ZERO)).isEqualTo(fixed.interval(Duration.ofHours(1), Duration.ZERO));
  }

  @Test
  void aBusyPeriodLongerThanTheIdleOneOrANonPositivePeriodIsRefusedNamingBoth() {
    assertThatThrownBy(() -> new ListSchedule(Duration.ofSeconds(1), Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("PT2S").hasMessageContaining("PT1S");
    assertThatThrownBy(() -> new ListSchedule(Duration.ZERO, Duration.ZERO)).isInstanceOf(IllegalArgumentException.class);
  }
}

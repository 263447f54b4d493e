package io.crigate.spi.adjust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

class QuantityTest {

  record Case(String name, String text, long milliCpu, long bytes) {}

  static Stream<Case> cases() {
    return Stream.of(
        new Case("whole", "2", 2000, 2),
        new Case("milli", "500m", 500, 1), // 0.5 byte rounds up to 1
        new Case("decimal", "1.5", 1500, 2),
        new Case("binary", "1Gi", 1_073_741_824_000L, 1_073_741_824L), // 2^30
        new Case("decimal suffix", "128M", 128_000_000_000L, 128_000_000L),
        new Case("exponent", "1e3", 1_000_000, 1000));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void parses(Case c) {
    assertThat(Quantity.milliCpu(c.text())).isEqualTo(c.milliCpu());
    assertThat(Quantity.bytes(c.text())).isEqualTo(c.bytes());
  }

  @Test
  void rejectsWhatIsNotAQuantity() {
    assertThatThrownBy(() -> Quantity.bytes("12 apples")).hasMessageContaining("'12 apples' is not a Kubernetes quantity");
    assertThatThrownBy(() -> Quantity.bytes("-1")).hasMessageContaining("negative");
  }

  @Test
  void annotationRoundTripsAndNamesTheBadField() {
    String json = ResourceAnnotation.format(Map.of("app", Map.of("requests", Map.of("cpu", "2", "memory", "1Gi"),
        "limits", Map.of("cpu", "2", "memory", "1Gi"))));
    assertThat(ResourceAnnotation.parse(json)).containsEntry("app",
        new ResourceRequirements(2000, 2000, 1L << 30, 1L << 30));
    assertThat(QosClass.of(ResourceAnnotation.parse(json).values())).isEqualTo(QosClass.GUARANTEED);
    assertThatThrownBy(() -> ResourceAnnotation.parse("{\"containers\":{\"app\":{\"limits\":{\"cpu\":\"lots\"}}}}"))
        .hasMessageContaining("containers.app.limits.cpu");
  }

  @Test
  void qosFromCgroupParent() {
    assertThat(QosClass.fromCgroupParent("/kubepods/burstable/pod1", QosClass.BEST_EFFORT)).isEqualTo(QosClass.BURSTABLE);
    assertThat(QosClass.fromCgroupParent("kubepods-besteffort-pod1.slice", QosClass.GUARANTEED)).isEqualTo(QosClass.BEST_EFFORT);
    assertThat(QosClass.fromCgroupParent("kubepods-pod1.slice", QosClass.BEST_EFFORT)).isEqualTo(QosClass.GUARANTEED);
    assertThat(QosClass.fromCgroupParent("", QosClass.BURSTABLE)).isEqualTo(QosClass.BURSTABLE);
  }
}

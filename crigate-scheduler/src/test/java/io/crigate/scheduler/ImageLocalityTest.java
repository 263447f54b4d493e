package io.crigate.scheduler;

import static io.crigate.scheduler.ImageLocality.MIB;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ImageLocalityTest {

  record Case(String name, List<String> podImages, Map<String, Long> nodeImages,
      Map<String, Integer> nodesWithImage, int totalNodes, long expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    return Stream.of(
        // nothing listed: sum 0 -> clamped up to 23 MiB -> 0
        new Case("no image on node", List.of("app:1"), Map.of(), Map.of(), 10, 0),
        // 250 MiB x 10/10 = 250 MiB; 100 x (250-23)/(1000-23) = 22700/977 = 23
        new Case("one image on every node", List.of("app:1"),
            Map.of("app:1", 250 * MIB), Map.of("app:1", 10), 10, 23),
        // 250 MiB x 1/10 = 25 MiB; 100 x (25-23)/977 = 200/977 = 0
        new Case("spread shrinks a rare image below usefulness", List.of("app:1"),
            Map.of("app:1", 250 * MIB), Map.of("app:1", 1), 10, 0),
        // 2000 MiB x 1 = 2000 MiB clamped to 1000 MiB -> 100
        new Case("saturates at 1000 MiB per container", List.of("big:1"),
            Map.of("big:1", 2000 * MIB), Map.of("big:1", 4), 4, 100),
        // two containers: max 2000 MiB; sum 500+500 = 1000 MiB; 100 x 977/1977 = 97700/1977 = 49
        new Case("init and regular containers both count", List.of("init:1", "app:1"),
            Map.of("init:1", 500 * MIB, "app:1", 500 * MIB), Map.of("init:1", 3, "app:1", 3), 3, 49),
        // "app" normalizes to "app:latest"; 523 MiB x 1 -> 100 x 500/977 = 51
        new Case("untagged name matches :latest", List.of("app"),
            Map.of("app:latest", 523 * MIB), Map.of("app:latest", 2), 2, 51),
        // two containers with the same image: both count, max is 2000 MiB;
        // sum 600+600 = 1200; 100 x 1177/1977 = 117700/1977 = 59
        new Case("same image twice counts twice", List.of("app:1", "app:1"),
            Map.of("app:1", 600 * MIB), Map.of("app:1", 5), 5, 59));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void scoresLikeUpstream(Case c) {
    assertThat(ImageLocality.score(c.podImages(), c.nodeImages(), c.nodesWithImage(), c.totalNodes()))
        .isEqualTo(c.expected());
  }

  record NameCase(String name, String image, String expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<NameCase> names() {
    return Stream.of(
        new NameCase("bare name", "busybox", "busybox:latest"),
        new NameCase("tagged", "busybox:1.36", "busybox:1.36"),
        new NameCase("registry port without tag", "127.0.0.1:5000/a", "127.0.0.1:5000/a:latest"),
        new NameCase("registry port with tag", "127.0.0.1:5000/a:1", "127.0.0.1:5000/a:1"),
        new NameCase("digest", "a@sha256:00", "a@sha256:00"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("names")
  void normalizesLikeUpstream(NameCase c) {
    assertThat(ImageLocality.normalizedImageName(c.image())).isEqualTo(c.expected());
  }
}

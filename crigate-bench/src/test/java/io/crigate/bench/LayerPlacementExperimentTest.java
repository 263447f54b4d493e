package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class LayerPlacementExperimentTest {

  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  private static String line(String method, String path, int status, long bytes, String agent) {
    return "127.0.0.1 - - [22/Nov/2026:02:10:39 +0000] \"%s %s HTTP/1.1\" %d %d \"\" \"%s\"%n"
        .formatted(method, path, status, bytes, agent);
  }

  record Case(String name, String log, long bytes) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> logs() {
    String blob = "/v2/crigate-exp/py-web/blobs/" + DIGEST;
    String containerd = "containerd/v1.6.20";
    return Stream.of(
        new Case("containerd blob GETs are summed",
            line("GET", blob, 200, 1000, containerd) + line("GET", blob, 200, 234, containerd), 1234),
        new Case("HEAD of a blob transfers nothing", line("HEAD", blob, 200, 1000, containerd), 0),
        new Case("manifest GET is not a layer", line("GET", "/v2/crigate-exp/py-web/manifests/v1", 200, 500, containerd), 0),
        new Case("skopeo pushing or reading is not a node", line("GET", blob, 200, 1000, "skopeo/1.9.3"), 0),
        new Case("other repositories are someone else's pulls",
            line("GET", "/v2/crigate/base/blobs/" + DIGEST, 200, 1000, containerd), 0),
        new Case("failed GET transfers no blob", line("GET", blob, 404, 19, containerd), 0));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("logs")
  void countsOnlyBlobsContainerdFetchedFromTheExperimentRepository(Case c) {
    assertThat(LayerPlacementExperiment.blobBytes(c.log(), "crigate-exp")).isEqualTo(c.bytes());
  }

  @Test
  void everyScorerSeesTheSameSequenceAndPopularImagesDominate() {
    LayerPlacementExperiment first = experiment(7);
    List<LayerPlacementExperiment.Pod> sequence = first.sequence();

    assertThat(experiment(7).sequence()).isEqualTo(sequence).hasSize(200);
    assertThat(experiment(8).sequence()).isNotEqualTo(sequence);
    long mostPopular = sequence.stream().filter(p -> p.image().equals("r/one:v1")).count();
    long leastPopular = sequence.stream().filter(p -> p.image().equals("r/three:v1")).count();
    assertThat(mostPopular).isGreaterThan(leastPopular).isGreaterThan(0);
    assertThat(leastPopular).isGreaterThan(0);
  }

  @Test
  void coefficientOfVariationIsStandardDeviationOverMean() {
    assertThat(LayerPlacementExperiment.coefficientOfVariation(List.of(6, 6, 6))).isZero();
    assertThat(LayerPlacementExperiment.coefficientOfVariation(List.of(4, 8))).isEqualTo(2.0 / 6);
  }

  private static LayerPlacementExperiment experiment(long seed) {
    LayerPlacementExperiment experiment = new LayerPlacementExperiment();
    experiment.images = List.of("r/one:v1", "r/two:v1", "r/three:v1");
    experiment.pods = 200;
    experiment.seed = seed;
    return experiment;
  }
}

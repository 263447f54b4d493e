package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RegistryAccessLogTest {

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
    assertThat(RegistryAccessLog.blobBytes(c.log(), "crigate-exp")).isEqualTo(c.bytes());
  }
}

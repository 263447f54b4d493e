package io.crigate.it;

import java.nio.file.Path;

/**
 * The daemons scripts/infra/up.sh started, as its env file describes them. Integration tests read
 * nothing else, so they run against whatever infrastructure the environment names.
 */
record Infra(Path dir, String containerdA, String containerdB, String pauseImage, String baseImage, String demoImage) {

  static Infra fromEnvironment() {
    return new Infra(Path.of(required("CRIGATE_INFRA_DIR")), required("CRIGATE_CONTAINERD_A"),
        required("CRIGATE_CONTAINERD_B"), required("CRIGATE_IMAGE_PAUSE"), required("CRIGATE_IMAGE_BASE"),
        required("CRIGATE_IMAGE_DEMO"));
  }

  /** The repository checkout, found from the working directory failsafe runs in. */
  static Path repositoryRoot() {
    for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
      if (dir.resolve("bin/crigate").toFile().canExecute() && dir.resolve("scripts/infra").toFile().isDirectory()) {
        return dir;
      }
    }
    throw new IllegalStateException("no crigate checkout (bin/crigate) above " + Path.of("").toAbsolutePath());
  }

  private static String required(String variable) {
    String value = System.getenv(variable);
    if (value == null || value.isBlank()) {
      throw new IllegalStateException(variable + " is not set: run scripts/infra/up.sh, then "
          + "'. ${CRIGATE_INFRA_DIR:-/tmp/crigate-infra}/env' (scripts/test.sh does both)");
    }
    return value;
  }
}

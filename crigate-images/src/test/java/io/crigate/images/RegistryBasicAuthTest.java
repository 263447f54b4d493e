package io.crigate.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A real docker-registry with htpasswd (Basic) authentication. */
class RegistryBasicAuthTest {

  private static final String USER = "crigate";
  private static final String PASSWORD = "pa55-w0rd-never-logged";

  @TempDir static Path dir;
  private static HtpasswdRegistry secured;
  private static String reference;
  private static ImageLayers expected;

  @BeforeAll
  static void start() throws Exception {
    String imageA = LocalRegistry.image("CRIGATE_IMAGE_A");
    if (!Files.isExecutable(Path.of("/usr/bin/htpasswd"))) {
      throw new IllegalStateException("htpasswd missing: apt-get install apache2-utils (scripts/infra/install-deps.sh does)");
    }
    secured = HtpasswdRegistry.start(dir, USER, PASSWORD);
    secured.copyFrom(imageA, "secured/a:v1", USER, PASSWORD);
    reference = secured.host + "/secured/a:v1";
    expected = new RegistryClient(RegistryClientConfig.defaults()).layers(imageA);
  }

  @AfterAll
  static void stop() {
    if (secured != null) {
      secured.close();
    }
  }

  @Test
  void theRightLoginReadsTheLayers() {
    var client = new RegistryClient(RegistryClientConfig.defaults()
        .withCredentials(secured.host, new RegistryCredentials(USER, PASSWORD)));

    ImageLayers layers = client.layers(reference);

    assertThat(layers.digest()).isEqualTo(expected.digest());
    assertThat(layers.layers()).isEqualTo(expected.layers());
  }

  @Test
  void withoutALoginTheErrorSaysOneIsNeeded() {
    assertThatThrownBy(() -> new RegistryClient(RegistryClientConfig.defaults()).layers(reference))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("requires a login");
  }

  @Test
  void aWrongPasswordIsRefusedWithoutEchoingIt() {
    String wrong = "wrong-secret-xyz";
    var client = new RegistryClient(RegistryClientConfig.defaults()
        .withCredentials(secured.host, new RegistryCredentials(USER, wrong)));

    assertThatThrownBy(() -> client.layers(reference))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("refused access")
        .satisfies(e -> assertThat(String.valueOf(e)).doesNotContain(wrong).doesNotContain(USER + ":"));
  }
}

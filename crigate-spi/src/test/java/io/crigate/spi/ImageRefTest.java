package io.crigate.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ImageRefTest {

  private static final String DIGEST = "sha256:" + "ab".repeat(32);

  record Case(String name, String input, String registry, String repository, String tag, String digest) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> valid() {
    return Stream.of(
        // a bare name lives on Docker Hub under library/ with tag latest
        new Case("official image", "busybox", "docker.io", "library/busybox", "latest", null),
        new Case("user image with tag", "ryax/app:1.2", "docker.io", "ryax/app", "1.2", null),
        new Case("explicit docker.io", "docker.io/python:3.12-slim", "docker.io", "library/python", "3.12-slim", null),
        new Case("index.docker.io alias", "index.docker.io/library/busybox", "docker.io", "library/busybox", "latest", null),
        new Case("registry with port", "127.0.0.1:5000/crigate/a:v1", "127.0.0.1:5000", "crigate/a", "v1", null),
        new Case("localhost names a registry", "localhost/app", "localhost", "app", "latest", null),
        new Case("dotted host, nested path", "ghcr.io/org/team/app:x", "ghcr.io", "org/team/app", "x", null),
        // a pinned digest replaces the default tag
        new Case("digest only", "quay.io/app@" + DIGEST, "quay.io", "app", null, DIGEST),
        new Case("tag and digest", "quay.io/app:v2@" + DIGEST, "quay.io", "app", "v2", DIGEST),
        new Case("port without tag", "registry:5000/app", "registry:5000", "app", "latest", null),
        new Case("ipv6 host", "[::1]:5000/app:t", "[::1]:5000", "app", "t", null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void parses(Case c) {
    ImageRef ref = ImageRef.parse(c.input());
    assertThat(ref).isEqualTo(new ImageRef(c.registry(), c.repository(), c.tag(), c.digest()));
  }

  static Stream<Case> invalid() {
    return Stream.of(
        new Case("empty", "", null, null, null, null),
        new Case("upper-case repository", "docker.io/Library/busybox", null, null, null, null),
        new Case("bad digest", "busybox@sha256:1234", null, null, null, null),
        new Case("bad tag", "busybox:-x", null, null, null, null),
        new Case("empty component", "ghcr.io//app", null, null, null, null));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void rejectsMalformedReferencesNamingThem(Case c) {
    assertThatThrownBy(() -> ImageRef.parse(c.input()))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(c.input().isEmpty() ? "empty" : "");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("valid")
  void printsAFormThatParsesBackToItself(Case c) {
    ImageRef ref = ImageRef.parse(c.input());
    assertThat(ImageRef.parse(ref.toString())).isEqualTo(ref);
  }
}

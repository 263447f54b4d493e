package io.crigate.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.Api;
import java.io.IOException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The generated descriptors must describe exactly the rows of the committed CRI table: any field,
 * enum value or RPC that is added, dropped, renumbered or retyped fails the build.
 */
class CriSchemaTest {

  private static final String PACKAGE = "runtime.v1.";

  @Test
  void descriptorsMatchTheWireTable() throws IOException {
    Set<String> expected = WireTable.read("/cri-runtime-v1-v0.36.3.tsv");
    Set<String> actual = WireTable.describe(Api.getDescriptor(), PACKAGE);

    assertThat(actual).as("rows generated from api.proto").containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void tableHasAllFortyOneRpcs() throws IOException {
    long rpcs = WireTable.read("/cri-runtime-v1-v0.36.3.tsv").stream().filter(r -> r.startsWith("rpc\t")).count();
    assertThat(rpcs).isEqualTo(41);
    assertThat(Api.getDescriptor().getServices().stream().mapToInt(s -> s.getMethods().size()).sum())
        .isEqualTo(41);
  }
}

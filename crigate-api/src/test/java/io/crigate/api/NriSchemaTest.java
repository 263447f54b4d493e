package io.crigate.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.nri.v1alpha1.Api;
import java.io.IOException;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The generated NRI descriptors must describe exactly the rows of the committed NRI v0.12.2 table:
 * any field, enum value or RPC added, dropped, renumbered or retyped fails the build.
 */
class NriSchemaTest {

  private static final String PACKAGE = "nri.pkg.api.v1alpha1.";
  private static final String TABLE = "/nri-api-v0.12.2.tsv";

  @Test
  void descriptorsMatchTheWireTable() throws IOException {
    Set<String> expected = WireTable.read(TABLE);
    Set<String> actual = WireTable.describe(Api.getDescriptor(), PACKAGE);

    assertThat(actual).as("rows generated from nri/v1alpha1/api.proto").containsExactlyInAnyOrderElementsOf(expected);
  }

  @Test
  void threeServicesWithTwentyOneRpcs() throws IOException {
    // Plugin 18 + Runtime 2 + HostFunctions 1 = 21
    assertThat(WireTable.read(TABLE).stream().filter(r -> r.startsWith("rpc\t")).count()).isEqualTo(21);
    assertThat(Api.getDescriptor().getServices()).extracting(s -> s.getName() + ":" + s.getMethods().size())
        .containsExactlyInAnyOrder("Plugin:18", "Runtime:2", "HostFunctions:1");
    assertThat(Api.getDescriptor().getPackage()).isEqualTo("nri.pkg.api.v1alpha1");
  }
}

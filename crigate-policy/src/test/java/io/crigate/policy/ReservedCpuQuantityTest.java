package io.crigate.policy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.spi.CrigateException;
import io.crigate.topology.CpuSet;
import io.crigate.topology.Fixtures;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** {@code reservedCpus} with CRI Resource Manager's qualifiers: {@code quantity:Q} and {@code cpuset:LIST}. */
class ReservedCpuQuantityTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Set<String> KNOWN = Policies.ALL.keySet();

  private static PolicySettings read(String yaml) throws Exception {
    return PolicySettings.read(YAML.readTree(yaml), KNOWN, Fixtures.topology(ActivePolicyTest.FIXTURE));
  }

  @Test
  void quantityIsRoundedUpToWholeCpus() throws Exception {
    assertThat(read("active: static\nreservedCpus: quantity:1").reservedCpus().size()).isEqualTo(1);
    // 750m, as in CRI Resource Manager's fallback.cfg.sample, occupies one whole CPU once pinned
    assertThat(read("active: static\nreservedCpus: quantity:750m").reservedCpus().size()).isEqualTo(1);
    assertThat(read("active: static\nreservedCpus: quantity:1.5").reservedCpus().size()).isEqualTo(2);
  }

  @Test
  void cpusetQualifierListsCpus() throws Exception {
    assertThat(read("active: static\nreservedCpus: cpuset:1-2").reservedCpus()).isEqualTo(CpuSet.parse("1-2"));
  }

  @Test
  void badOrExcessiveQuantitiesAreRefusedByName() {
    assertThatThrownBy(() -> read("active: static\nreservedCpus: quantity:lots"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("policy.reservedCpus: 'lots' is not a CPU quantity");
    assertThatThrownBy(() -> read("active: static\nreservedCpus: quantity:9"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("policy.reservedCpus: not enough free CPUs");
  }
}

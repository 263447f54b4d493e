package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class DumpRulesTest {

  private static final String RUNTIME = "runtime.v1.RuntimeService/";
  private static final String IMAGE = "runtime.v1.ImageService/";

  record Case(String name, String rules, String method, DumpLevel expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    String layered = "off:.*,short:.*Pod.*,full:CreateContainer";
    return Stream.of(
        new Case("no rules dump nothing", "", RUNTIME + "Version", DumpLevel.OFF),
        new Case("catch-all off", layered, RUNTIME + "Version", DumpLevel.OFF),
        // RunPodSandbox matches off:.* then short:.*Pod.*; the later one wins
        new Case("later short beats earlier off", layered, RUNTIME + "RunPodSandbox", DumpLevel.SHORT),
        new Case("last full wins", layered, RUNTIME + "CreateContainer", DumpLevel.FULL),
        // the regex must match the whole short name: CreateContainer does not match CreateContainerX
        new Case("whole-name match only", "full:Create", RUNTIME + "CreateContainer", DumpLevel.OFF),
        // full:.* comes first, off:Version last: off wins for Version only
        new Case("later off silences one method", "full:.*,off:Version", RUNTIME + "Version", DumpLevel.OFF),
        new Case("earlier full kept for others", "full:.*,off:Version", RUNTIME + "Status", DumpLevel.FULL),
        new Case("full service name matches", "full:runtime\\.v1\\.ImageService/.*", IMAGE + "PullImage", DumpLevel.FULL),
        new Case("service regex misses other service", "full:runtime\\.v1\\.ImageService/.*", RUNTIME + "Version",
            DumpLevel.OFF),
        new Case("alternation", "short:PullImage|RemoveImage", IMAGE + "RemoveImage", DumpLevel.SHORT),
        new Case("blank entries ignored", " , short:Version ,", RUNTIME + "Version", DumpLevel.SHORT));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void lastMatchingRuleDecides(Case c) {
    DumpRules rules = DumpRules.parse(c.rules());

    assertThat(rules.levelFor(c.method())).isEqualTo(c.expected());
    assertThat(rules.levelFor(c.method())).as("cached decision").isEqualTo(c.expected());
  }

  @ParameterizedTest(name = "enabled: {0}")
  @MethodSource("enabledCases")
  void enabledOnlyWhenSomeRuleDumps(String rules, boolean enabled) {
    assertThat(DumpRules.parse(rules).enabled()).isEqualTo(enabled);
  }

  static Stream<org.junit.jupiter.params.provider.Arguments> enabledCases() {
    return Stream.of(
        org.junit.jupiter.params.provider.Arguments.of("", false),
        org.junit.jupiter.params.provider.Arguments.of("off:.*", false),
        org.junit.jupiter.params.provider.Arguments.of("off:.*,short:Version", true));
  }
}

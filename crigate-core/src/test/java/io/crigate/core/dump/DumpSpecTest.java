package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import org.junit.jupiter.api.Test;

/** CRI Resource Manager's dump specifications, taken verbatim from its README and sample configs. */
class DumpSpecTest {

  private static final String RUNTIME = "runtime.v1.RuntimeService/";
  private static final String IMAGE = "runtime.v1.ImageService/";

  @Test
  void readmeResetFullDumpsEveryMethodInFull() {
    // cri-resmgr -policy null -dump 'reset,full:.*' -dump-file /tmp/cri.dump
    DumpRules rules = DumpRules.parse("reset,full:.*");

    assertThat(rules.levelFor(RUNTIME + "Version")).isEqualTo(DumpLevel.FULL);
    assertThat(rules.levelFor(IMAGE + "PullImage")).isEqualTo(DumpLevel.FULL);
  }

  @Test
  void resetForgetsTheRulesBeforeIt() {
    DumpRules rules = DumpRules.parse("full:.*,reset,short:Version");

    assertThat(rules.levelFor(RUNTIME + "Version")).isEqualTo(DumpLevel.SHORT);
    assertThat(rules.levelFor(RUNTIME + "Status")).isEqualTo(DumpLevel.OFF);
  }

  @Test
  void entriesWithoutLevelTakeThePreviousOne() {
    // CRI Resource Manager's built-in default specification
    DumpRules rules = DumpRules.parse("full:.*,off:Version,.*List.*,.*Status.*,.*Info.*,.*Log.*,.*Reopen.*");

    assertThat(rules.levelFor(RUNTIME + "CreateContainer")).isEqualTo(DumpLevel.FULL);
    assertThat(rules.levelFor(RUNTIME + "Version")).isEqualTo(DumpLevel.OFF);
    assertThat(rules.levelFor(RUNTIME + "ListContainers")).isEqualTo(DumpLevel.OFF);
    assertThat(rules.levelFor(RUNTIME + "ContainerStatus")).isEqualTo(DumpLevel.OFF);
    assertThat(rules.levelFor(IMAGE + "ImageFsInfo")).isEqualTo(DumpLevel.OFF);
  }

  @Test
  void sampleConfigGroupAlternation() {
    // dump.Config of cmd/cri-resmgr/fallback.cfg.sample
    DumpRules rules = DumpRules.parse("off:.*,full:((Create)|(Remove)|(Run)|(Update)|(Start)|(Stop)).*");

    assertThat(rules.levelFor(RUNTIME + "RunPodSandbox")).isEqualTo(DumpLevel.FULL);
    assertThat(rules.levelFor(RUNTIME + "ListPodSandbox")).isEqualTo(DumpLevel.OFF);
  }

  @Test
  void aliasesAndStar() {
    assertThat(DumpRules.parse("long:*").levelFor(RUNTIME + "Version")).isEqualTo(DumpLevel.FULL);
    assertThat(DumpRules.parse("name:Version").levelFor(RUNTIME + "Version")).isEqualTo(DumpLevel.SHORT);
    assertThat(DumpRules.parse("full:*,suppress:Version").levelFor(RUNTIME + "Version")).isEqualTo(DumpLevel.OFF);
  }

  @Test
  void disableTurnsDumpingOffUntilEnable() {
    assertThat(DumpRules.parse("full:.*,disable").enabled()).isFalse();
    assertThat(DumpRules.parse("full:.*,disable,enable").enabled()).isTrue();
    assertThat(DumpRules.parse("disable,reset,full:.*").enabled()).isTrue();
  }

  @Test
  void levelLessFirstEntryAndDebugAreRefusedByName() {
    assertThatThrownBy(() -> DumpRules.parse("Version"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("'Version'").hasMessageContaining("no rule before it gives a level");
    assertThatThrownBy(() -> DumpRules.parse("debug,full:.*"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("'debug'").hasMessageContaining("--dump-file");
  }
}

package io.crigate.cli.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.cli.migrate.SeedArguments.SeedCommandLine;
import io.crigate.policy.seed.SeedFinding;
import io.crigate.policy.seed.SeedFinding.Outcome;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The seed systems' own command lines, verbatim from their READMEs, through the translation. */
class SeedArgumentsTest {

  private static final Map<String, String> ENV = Map.of("HOME", "/home/jorge");

  @TempDir
  Path dir;

  private static SeedCommandLine translate(String... args) {
    return SeedArguments.translate(List.of(args), ENV);
  }

  private static List<String> settings(SeedCommandLine line, Outcome outcome) {
    return line.with(outcome).stream().map(SeedFinding::setting).toList();
  }

  @Test
  void multiCriSystemdUnitExample() {
    // ExecStart=/usr/local/bin/multi-cri -v 3 --socket-path /var/run/multi-cri.sock --remote-runtime-endpoints default:/var/run/dockershim.sock
    SeedCommandLine line = SeedArguments.translate(List.of("-v", "3", "--socket-path", "/var/run/multi-cri.sock",
        "--remote-runtime-endpoints", "default:/var/run/dockershim.sock"), Map.of("HOME", "/home/jorge",
        "CRI_SLURM_BUILD_IN_CLUSTER", "true"));

    assertThat(line.crigateArgs()).containsExactly("--remote-runtime-endpoints", "default:/var/run/dockershim.sock");
    assertThat(line.settings().get("socket").asText()).isEqualTo("/var/run/multi-cri.sock");
    assertThat(line.settings().get("logLevel").asText()).isEqualTo("debug");
    // multi-cri runs its slurm adapter unless told otherwise: RuntimeClass multicri goes to Slurm
    assertThat(line.settings().at("/backends/0/type").asText()).isEqualTo("slurm");
    assertThat(line.settings().at("/backends/0/handlers/0").asText()).isEqualTo("multicri");
    assertThat(line.settings().at("/backends/0/workDir").asText()).isEqualTo("/home/jorge/multi-cri");
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("CRI_SLURM_BUILD_IN_CLUSTER");
    assertThat(line.with(Outcome.REFUSED)).isEmpty();
  }

  @Test
  void multiCriSystemdUnitExampleWithAdapterNameSlurm() {
    // the unit's ExecStart with --adapter-name slurm (seed 000: "configure it by setting the --adapter-name variable")
    SeedCommandLine line = SeedArguments.translate(List.of("-v", "3", "--socket-path", "/var/run/multi-cri.sock",
        "--remote-runtime-endpoints", "default:/var/run/dockershim.sock", "--adapter-name", "slurm"), ENV);

    assertThat(line.settings().at("/backends/0/type").asText()).isEqualTo("slurm");
    assertThat(line.settings().at("/backends/0/handlers/0").asText()).isEqualTo("multicri");
    assertThat(line.settings().withArray("backends")).hasSize(1);
    assertThat(line.with(Outcome.REFUSED)).isEmpty();
  }

  @Test
  void anAdapterCrigateLacksIsRefusedNamingIt() {
    SeedCommandLine line = translate("--socket-path", "/var/run/multi-cri.sock", "--adapter-name", "kubernetes");

    assertThat(settings(line, Outcome.REFUSED)).containsExactly("--adapter-name kubernetes");
    assertThat(line.with(Outcome.REFUSED).get(0).detail()).contains("multi-cri has no adapter 'kubernetes'");
    assertThat(line.settings().has("backends")).isFalse();
  }

  @Test
  void multiCriDocumentedFlagsMapOrWarn() {
    SeedCommandLine line = translate("--root-dir", "/var/lib/multi-cri", "--stream-addr", "127.0.0.1",
        "--stream-port", "10010", "--sandbox-image", "gcr.io/google_containers/pause:3.0", "--adapter-name", "slurm",
        "--enable-pod-persistence", "--resources-cache-path", "/root/.multi-cri/", "--stderrthreshold", "2",
        "--network-bin-dir", "/opt/cni/bin", "--network-conf-dir", "/etc/cni/net.d");

    assertThat(line.settings().get("stateDir").asText()).isEqualTo("/var/lib/multi-cri");
    assertThat(line.settings().at("/streaming/address").asText()).isEqualTo("127.0.0.1");
    assertThat(line.settings().at("/streaming/port").asInt()).isEqualTo(10010);
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("--sandbox-image", "--enable-pod-persistence",
        "--resources-cache-path", "--stderrthreshold", "--network-bin-dir", "--network-conf-dir");
    assertThat(line.with(Outcome.REFUSED)).isEmpty();
    assertThat(line.crigateArgs()).isEmpty();
  }

  @Test
  void multiCriFlagsCrigateCannotHonourAreRefusedWithWhy() {
    SeedCommandLine line = translate("--enable-pod-network", "--adapter-name", "docker", "--stream-port", "many");

    assertThat(line.with(Outcome.REFUSED)).extracting(SeedFinding::line).containsExactly(
        "--enable-pod-network: crigate does not set up CNI networks for Slurm pods; pods on a cri backend get the "
            + "network of that runtime's CNI configuration",
        "--stream-port: 'many' is not a port number (0-65535)",
        "--adapter-name docker: multi-cri has no adapter 'docker'; crigate's backend types are cri and slurm");
  }

  @Test
  void multiCriKlogFlagsAreWarnedOrRefusedInEitherSpelling() {
    // multi-cri's main adds klog's Go flags to pflag, which takes log_dir and log-dir alike
    SeedCommandLine line = translate("--logtostderr", "--alsologtostderr=true", "--vmodule", "adapter=4",
        "--log_backtrace_at", "adapter.go:10", "--log-flush-frequency", "5s", "--log_dir", "/var/log/multi-cri",
        "--log-file", "/var/log/multi-cri.log");

    assertThat(line.crigateArgs()).isEmpty();
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("--logtostderr", "--alsologtostderr",
        "--vmodule", "--log_backtrace_at", "--log-flush-frequency");
    assertThat(settings(line, Outcome.REFUSED)).containsExactly("--log_dir", "--log-file");
    assertThat(line.with(Outcome.REFUSED).get(0).detail()).contains("standard error");
  }

  @Test
  void criRmReadmeDumperExample() {
    // ./cmd/cri-resmgr/cri-resmgr -policy null -dump 'reset,full:.*' -dump-file /tmp/cri.dump
    SeedCommandLine line = translate("-policy", "null", "-dump", "reset,full:.*", "-dump-file", "/tmp/cri.dump");

    assertThat(line.crigateArgs()).containsExactly("--dump-file", "/tmp/cri.dump");
    assertThat(line.settings().at("/dump/rules").asText()).isEqualTo("reset,full:.*");
    assertThat(line.settings().at("/policy/active").asText()).isEqualTo("none");
    // no --relay-socket: crigate listens where CRI Resource Manager would, the README's kubelet socket
    assertThat(line.settings().get("socket").asText()).isEqualTo("/var/run/cri-relay.sock");
    assertThat(line.findings()).allMatch(f -> f.outcome() == Outcome.MAPPED);
  }

  @Test
  void multiCriWithoutSocketPathListensOnMultiCrisDefault() {
    // multi-cri's option list: --socket-path (default "/var/run/multicri.sock")
    SeedCommandLine line = translate("-v", "3", "--remote-runtime-endpoints", "default:/var/run/dockershim.sock");

    assertThat(line.settings().get("socket").asText()).isEqualTo("/var/run/multicri.sock");
  }

  @Test
  void anExplicitSocketWinsOverTheSeedsDefault() throws Exception {
    SeedCommandLine criRm = translate("-policy", "null", "--socket", "/run/x.sock");
    SeedCommandLine multiCri = translate("-v", "3", "--socket=/run/y.sock");
    Path config = Files.writeString(dir.resolve("crigate.yaml"), "socket: /run/z.sock\n");
    SeedCommandLine withConfig = translate("-policy", "null", "--config", config.toString());
    SeedCommandLine relay = translate("-policy", "null", "--relay-socket", "/run/relay.sock");

    assertThat(criRm.settings().has("socket")).isFalse();
    assertThat(criRm.crigateArgs()).containsExactly("--socket", "/run/x.sock");
    assertThat(multiCri.settings().has("socket")).isFalse();
    assertThat(withConfig.settings().has("socket")).isFalse();
    assertThat(relay.settings().get("socket").asText()).isEqualTo("/run/relay.sock");
  }

  @Test
  void criRmReadmeForceConfigExample() throws Exception {
    // cri-resmgr --force-config <config-file> --runtime-socket unix:///var/run/containerd/containerd.sock
    Path config = Files.writeString(dir.resolve("static.cfg"), """
        policy:
          ReservedResources:
            CPU: 1
          Active: static
        """);
    SeedCommandLine line = translate("--force-config", config.toString(), "--runtime-socket",
        "unix:///var/run/containerd/containerd.sock");

    assertThat(line.settings().at("/policy/active").asText()).isEqualTo("static");
    assertThat(line.settings().at("/policy/reservedCpus").asText()).isEqualTo("quantity:1");
    assertThat(line.settings().at("/backends/0/endpoint").asText()).isEqualTo("unix:///var/run/containerd/containerd.sock");
    assertThat(line.settings().at("/backends/0/handlers/0").asText()).isEqualTo("default");
    assertThat(line.findings()).allMatch(f -> f.outcome() == Outcome.MAPPED);
  }

  @Test
  void criRmOneOptionPerLineConfigFile() throws Exception {
    Path config = Files.writeString(dir.resolve("cri-resmgr.cfg"), """
        # the same options as the command line, without dashes
        policy static
        reserved-resources=cpu=1
        relay-socket /var/run/cri-relay.sock
        dump reset,full:.*
        """);
    SeedCommandLine line = translate("-config", config.toString());

    assertThat(line.settings().at("/policy/active").asText()).isEqualTo("static");
    assertThat(line.settings().at("/policy/reservedCpus").asText()).isEqualTo("quantity:1");
    assertThat(line.settings().get("socket").asText()).isEqualTo("/var/run/cri-relay.sock");
    assertThat(line.settings().at("/dump/rules").asText()).isEqualTo("reset,full:.*");
    assertThat(line.crigateArgs()).isEmpty();
  }

  @Test
  void criRmSampleStaticPolicyCfgAddsUpItsDumpLines() throws Exception {
    // CRI Resource Manager's sample-configs/static-policy.cfg, verbatim (crigate-it's CriRmSeedServeIT runs it too)
    Path config = Path.of(getClass().getResource("/seeds/cri-resmgr/static-policy.cfg").toURI());
    SeedCommandLine line = translate("--force-config", config.toString());

    assertThat(line.settings().at("/policy/active").asText()).isEqualTo("static");
    assertThat(line.settings().at("/policy/reservedCpus").asText()).isEqualTo("quantity:1000m");
    assertThat(line.settings().at("/dump/rules").asText()).isEqualTo("off:.*,full:RunPodSandbox,StopPodSandbox,"
        + "RemovePodSandbox,full:CreateContainer,StartContainer,StopContainer,RemoveContainer,full:UpdateContainerResources");
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("logger-debug");
  }

  @Test
  void repeatedDumpFlagsAddUpAndDebugIsDroppedWithAWarning() {
    SeedCommandLine line = translate("-dump", "off:.*", "--dump=full:.*,debug");

    assertThat(line.settings().at("/dump/rules").asText()).isEqualTo("off:.*,full:.*");
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("--dump debug");
  }

  @Test
  void crigatesOwnConfigFilePassesThrough() throws Exception {
    Path config = Files.writeString(dir.resolve("crigate.yaml"), "policy:\n  active: static\n");
    SeedCommandLine line = translate("--config", config.toString(), "--socket", "/run/x.sock");

    assertThat(line.crigateArgs()).containsExactly("--config", config.toString(), "--socket", "/run/x.sock");
    assertThat(line.findings()).isEmpty();
  }

  @Test
  void criRmListPoliciesBecomesCrigatePolicies() {
    SeedCommandLine line = translate("--list-policies");

    assertThat(line.replacesServe()).isTrue();
    assertThat(line.crigateArgs()).containsExactly("policies");
  }

  /** cri-resmgr --reset-config forgets and exits; it acts on the state directory the same line's serve would use. */
  @Test
  void criRmResetConfigBecomesForgetConfigMapOnTheLinesStateDirectory() {
    SeedCommandLine relayDir = translate("--reset-config", "--relay-dir", "/var/lib/cri-relay", "--runtime-socket",
        "/run/containerd/containerd.sock");
    assertThat(relayDir.replacesServe()).isTrue();
    assertThat(relayDir.crigateArgs()).containsExactly("policies", "forget-configmap", "--state-dir=/var/lib/cri-relay");
    assertThat(settings(relayDir, Outcome.MAPPED)).contains("--reset-config");

    assertThat(translate("--relay-dir", "/var/lib/cri-relay", "--state-dir", "/var/lib/x", "--reset-config").crigateArgs())
        .as("crigate's own flag wins, as in serve").containsExactly("policies", "forget-configmap", "--state-dir", "/var/lib/x");
    assertThat(translate("--config=/etc/crigate.yaml", "-reset-config").crigateArgs())
        .containsExactly("policies", "forget-configmap", "--config", "/etc/crigate.yaml");
    assertThat(translate("--reset-config=false", "--relay-dir", "/d").replacesServe()).isFalse();
  }

  @Test
  void criRmAvailableResourcesNameTheCpusThePolicyMayUse() {
    SeedCommandLine line = translate("--available-resources", "cpu=cpuset:2-63", "-policy", "static");

    assertThat(line.settings().at("/policy/availableCpus").asText()).isEqualTo("cpuset:2-63");
    assertThat(settings(line, Outcome.MAPPED)).contains("--available-resources");
  }

  @Test
  void criRmBalloonsPolicyIsCrigatesBalloons() {
    SeedCommandLine line = translate("-policy", "balloons");

    assertThat(settings(line, Outcome.REFUSED)).isEmpty();
    assertThat(line.settings().get("policy").get("active").asText()).isEqualTo("balloons");
  }

  @Test
  void criRmFlagsWithoutCrigateMeaning() {
    SeedCommandLine line = translate("--agent-socket", "/var/run/cri-resmgr/cri-resmgr-agent.sock",
        "--available-resources", "memory=8Gi", "--reset-policy", "--image-socket",
        "/var/run/dockershim.sock", "-policy", "podpools", "--logger-debug", "*");

    assertThat(settings(line, Outcome.IGNORED)).containsExactly("--agent-socket");
    assertThat(settings(line, Outcome.REFUSED)).containsExactly("--available-resources", "--reset-policy",
        "--image-socket", "-policy");
    assertThat(line.settings().get("logLevel").asText()).isEqualTo("debug");
  }

  @Test
  void criRmLoggerAndTimerFlagsAreMappedOrWarnedNeverLeftForPicocli() {
    // the rest of cri-resmgr's -h: its relay options and its logger's options
    SeedCommandLine line = translate("--metrics-interval", "10s", "--rebalance-interval", "disable", "--disable-ui",
        "--allow-untested-runtimes", "--pid-file", "/run/cri-resmgr.pid", "--force-config-signal", "SIGUSR1",
        "--logger-level", "warn", "--logger-source", "policy,cache", "--logger", "fmt", "--logger-prefix", "off",
        "--list-loggers");

    assertThat(line.crigateArgs()).isEmpty();
    assertThat(line.settings().get("logLevel").asText()).isEqualTo("warn");
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("--metrics-interval", "--rebalance-interval",
        "--disable-ui", "--allow-untested-runtimes", "--pid-file", "--force-config-signal", "--logger-source",
        "--logger", "--logger-prefix", "--list-loggers");
    assertThat(line.with(Outcome.REFUSED)).isEmpty();
  }

  @Test
  void criRmLoggerLevelOutsideItsFourLevelsIsRefusedNamingThem() {
    SeedCommandLine line = translate("-logger-level", "verbose");

    assertThat(line.with(Outcome.REFUSED)).extracting(SeedFinding::line)
        .containsExactly("-logger-level: 'verbose' is not a level (debug, info, warn, error)");
  }

  @Test
  void criRmRelayDirAndPolicySwitchFlags() {
    SeedCommandLine line = translate("--relay-dir", "/var/lib/cri-relay", "--allow-policy-switch",
        "--disable-policy-switch", "--runtime-socket", "/run/containerd/containerd.sock");

    assertThat(line.settings().get("stateDir").asText()).isEqualTo("/var/lib/cri-relay");
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("--allow-policy-switch");
    assertThat(settings(line, Outcome.REFUSED)).containsExactly("--disable-policy-switch");
  }

  @Test
  void criRmYamlSectionsBesidesPolicy() throws Exception {
    // the dump and logger sections of cmd/cri-resmgr/fallback.cfg.sample, with two more sections
    Path config = Files.writeString(dir.resolve("fallback.cfg"), """
        policy:
          Active: memtier
          ReservedResources:
            CPU: 750m
        logger:
          Debug: resource-manager,cache,policy,resource-control
        dump:
          Config: off:.*,full:((Create)|(Remove)|(Run)|(Update)|(Start)|(Stop)).*
          File: /tmp/cri.dump
        instrumentation:
          HTTPEndpoint: :8891
        rdt:
          options: {}
        """);
    SeedCommandLine line = translate("--fallback-config", config.toString(), "--runtime-socket", "/run/c.sock");

    assertThat(line.settings().at("/policy/active").asText()).isEqualTo("topology-aware");
    assertThat(line.settings().at("/dump/rules").asText())
        .isEqualTo("off:.*,full:((Create)|(Remove)|(Run)|(Update)|(Start)|(Stop)).*");
    assertThat(line.settings().at("/dump/file").asText()).isEqualTo("/tmp/cri.dump");
    assertThat(settings(line, Outcome.IGNORED)).containsExactly("logger.Debug", "instrumentation");
    assertThat(settings(line, Outcome.REFUSED)).containsExactly("rdt");
  }

  @Test
  void criRmBalloonsWithCpuClassesCarryOverToCrigatesBalloonsControl() throws Exception {
    Path config = Files.writeString(dir.resolve("balloons.cfg"), """
        policy:
          Active: balloons
          balloons:
            IdleCPUClass: idle
            BalloonTypes:
              - Name: fast
                MinBalloons: 1
                CpuClass: turbo
        cpu:
          classes:
            idle: {minFreq: 800000, maxFreq: 1200000}
            turbo: {minFreq: 3000000, maxFreq: 3600000, uncoreMinFreq: 2000000, uncoreMaxFreq: 2400000,
                    disabledCstates: [C6], energyPerformancePreference: 0}
        """);
    SeedCommandLine line = translate("--fallback-config", config.toString(), "--runtime-socket", "/run/c.sock");

    assertThat(line.settings().at("/policy/active").asText()).isEqualTo("balloons");
    assertThat(line.settings().at("/policy/balloons/idleCPUClass").asText()).isEqualTo("idle");
    assertThat(line.settings().at("/policy/balloons/balloonTypes/0/minBalloons").asInt()).isEqualTo(1);
    assertThat(line.settings().at("/policy/balloons/balloonTypes/0/cpuClass").asText()).isEqualTo("turbo");
    assertThat(line.settings().at("/policy/balloons/control/cpu/classes/turbo/maxFreq").asLong()).isEqualTo(3600000);
    assertThat(line.settings().at("/policy/balloons/control/cpu/classes/idle/minFreq").asLong()).isEqualTo(800000);
    assertThat(line.settings().at("/policy/balloons/control/cpu/classes/turbo/uncoreMinFreq").asLong()).isEqualTo(2000000);
    assertThat(line.settings().at("/policy/balloons/control/cpu/classes/turbo/uncoreMaxFreq").asLong()).isEqualTo(2400000);
    assertThat(line.settings().at("/policy/balloons/control/cpu/classes/turbo/disabledCstates/0").asText()).isEqualTo("C6");
    assertThat(line.settings().at("/policy/balloons/control/cpu/classes/turbo").has("energyPerformancePreference")).isFalse();
    assertThat(settings(line, Outcome.REFUSED)).containsExactly("cpu.classes.turbo.energyPerformancePreference");
  }
}

package io.crigate.interlink.seed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.interlink.seed.InterLinkConfigFile.Role;
import io.crigate.spi.CrigateException;
import io.crigate.testsupport.InterLinkSeedExamples;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** interLink's InterLinkConfig.yaml (seed 002) and the variables that override it, key by key. */
class InterLinkConfigFileTest {

  static final String SEED = InterLinkSeedExamples.INTERLINK_CONFIG;

  @TempDir Path tmp;

  private Map<String, String> env(String yaml, String... variables) throws IOException {
    Map<String, String> env = new HashMap<>();
    env.put("INTERLINKCONFIGPATH", Files.writeString(tmp.resolve("InterLinkConfig.yaml"), yaml).toString());
    for (int i = 0; i < variables.length; i += 2) {
      env.put(variables[i], variables[i + 1]);
    }
    return env;
  }

  private InterLinkConfigFile load(String yaml, String... variables) throws IOException {
    return InterLinkConfigFile.fromEnvironment(env(yaml, variables)).orElseThrow();
  }

  @Test
  void theSeedsFileGivesEachPartItsAddresses() throws IOException {
    InterLinkConfigFile file = load(SEED);

    assertThat(file.apiUrl()).isEqualTo("http://localhost:3000");
    assertThat(file.apiListen()).isEqualTo("0.0.0.0:3000");
    // interLink's Slurm sidecar port when SidecarService is slurm
    assertThat(file.pluginUrl()).isEqualTo("http://localhost:4001");
    assertThat(file.pluginListen()).isEqualTo("0.0.0.0:4001");
    assertThat(file.backendType()).contains("slurm");
    assertThat(file.vkTokenFile()).isEqualTo("/opt/interlink/token");
  }

  @Test
  void dockerIsPlayedByACriBackendOnPort4000() throws IOException {
    InterLinkConfigFile file = load(SEED.replace("\"slurm\" #docker", "\"docker\" #docker"));

    assertThat(file.backendType()).contains("cri");
    assertThat(file.pluginUrl()).isEqualTo("http://localhost:4000");
    // the key newer interLinks write; the first ones read it untagged, as sidecarport
    assertThat(load(SEED + "\nSidecarPort: \"28000\"").pluginUrl()).isEqualTo("http://localhost:28000");
    assertThat(load(SEED + "\nsidecarport: 28001").pluginListen()).isEqualTo("0.0.0.0:28001");
  }

  @Test
  void environmentVariablesOverrideTheirKeysAsInterLinkReadThem() throws IOException {
    InterLinkConfigFile file = load(SEED, "INTERLINKURL", "https://api.site", "INTERLINKPORT", "28100",
        "SIDECARURL", "http://plugin.site", "SBATCHPATH", "/opt/slurm/bin/sbatch", "SCANCELPATH", "/opt/slurm/bin/scancel",
        "VKTOKENFILE", "/run/vk-token", "TSOCKSPATH", "/opt/libtsocks.so");

    assertThat(file.apiUrl()).isEqualTo("https://api.site:28100");
    assertThat(file.pluginUrl()).isEqualTo("http://plugin.site:4001");
    assertThat(file.sbatchPath()).isEqualTo("/opt/slurm/bin/sbatch");
    assertThat(file.scancelPath()).isEqualTo("/opt/slurm/bin/scancel");
    assertThat(file.vkTokenFile()).isEqualTo("/run/vk-token");
    assertThat(file.tsocksPath()).isEqualTo("/opt/libtsocks.so");
  }

  @Test
  void sidecarPortNamesACustomSidecarOnlyWithoutSidecarService() throws IOException {
    InterLinkConfigFile custom = load(SEED, "SIDECARPORT", "28101");
    assertThat(custom.pluginUrl()).isEqualTo("http://localhost:28101");
    assertThat(custom.backendType()).as("interLink's 'Custom Service'").isEmpty();

    // with SIDECARSERVICE set, interLink took the service's own port and ignored SIDECARPORT
    InterLinkConfigFile docker = load(SEED, "SIDECARPORT", "28101", "SIDECARSERVICE", "docker");
    assertThat(docker.pluginUrl()).isEqualTo("http://localhost:4000");
    assertThat(docker.backendType()).contains("cri");
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "SIDECARSERVICE=podman|SidecarService 'podman' (or SIDECARSERVICE) must be docker or slurm",
      "TSOCKS=yes|TSOCKS must be true or false, not 'yes'",
      "INTERLINKPORT=30x0|InterlinkPort '30x0' is not a port number",
      "INTERLINKURL=localhost|InterlinkURL + InterlinkPort = localhost:3000: expected http(s)://host (without a port)"})
  void badValuesAreRefusedNamingTheKeyOrVariable(String variable, String message) {
    String[] nameValue = variable.split("=", 2);
    assertThatThrownBy(() -> {
      InterLinkConfigFile file = load(SEED, nameValue[0], nameValue[1]);
      file.apiUrl();
    }).isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(message);
  }

  @Test
  void anUnknownKeyIsRefusedNamingItAndTheKnownOnes() {
    assertThatThrownBy(() -> load(SEED + "\nInterlinkUrl: \"http://typo\""))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("unknown key 'InterlinkUrl'").hasMessageContaining("InterlinkURL");
  }

  @Test
  void theReadmesInterLinkPortSpellingSetTo8080IsTheApiPortAndBothSpellingsAreRefused() throws IOException {
    // "set the InterLinkPort field to 8080" (seed 002, Authentication)
    String readme = SEED.replace("InterlinkPort: \"3000\"", "InterLinkPort: 8080");
    assertThat(readme).contains("InterLinkPort: 8080").doesNotContain("InterlinkPort");

    InterLinkConfigFile file = load(readme);

    assertThat(file.interlinkPort()).isEqualTo("8080");
    assertThat(file.apiUrl()).isEqualTo("http://localhost:8080");
    assertThat(file.apiListen()).isEqualTo("0.0.0.0:8080");
    assertThatThrownBy(() -> load(SEED + "\nInterLinkPort: 8080"))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("both InterlinkPort and InterLinkPort are given");
  }

  @Test
  void withoutThePathVariableTheCodesDefaultThenTheReadmesDefaultIsRead() throws IOException {
    Path etc = tmp.resolve("etc/InterLinkConfig.yaml");
    Path kustomizations = Files.createDirectories(tmp.resolve("kustomizations")).resolve("InterLinkConfig.yaml");
    List<Path> defaults = List.of(etc, kustomizations);
    Files.writeString(kustomizations, SEED.replace("\"3000\"", "\"3001\""));

    assertThat(InterLinkConfigFile.fromEnvironment(Map.of(), defaults).orElseThrow().interlinkPort()).isEqualTo("3001");

    Files.createDirectories(etc.getParent());
    Files.writeString(etc, SEED);
    InterLinkConfigFile first = InterLinkConfigFile.fromEnvironment(Map.of(), defaults).orElseThrow();
    assertThat(first.path()).isEqualTo(etc);
    assertThat(first.interlinkPort()).isEqualTo("3000");
    assertThat(InterLinkConfigFile.fromEnvironment(Map.of(), List.of(tmp.resolve("none.yaml")))).isEmpty();
    assertThat(InterLinkConfigFile.DEFAULT_PATHS).containsExactly(Path.of("/etc/interlink/InterLinkConfig.yaml"),
        Path.of("kustomizations/InterLinkConfig.yaml"));
  }

  @Test
  void aPathVariableNamingNoFileIsRefusedAndWithoutItTheDefaultIsOptional() {
    assertThatThrownBy(() -> InterLinkConfigFile.fromEnvironment(Map.of("INTERLINKCONFIGPATH", tmp.resolve("nope.yaml").toString())))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("INTERLINKCONFIGPATH names %s, which does not exist".formatted(tmp.resolve("nope.yaml")));
    assertThat(InterLinkConfigFile.fromEnvironment(Map.of())).isEqualTo(
        Files.isRegularFile(InterLinkConfigFile.DEFAULT_PATH)
            ? InterLinkConfigFile.fromEnvironment(Map.of("INTERLINKCONFIGPATH", InterLinkConfigFile.DEFAULT_PATH.toString()))
            : java.util.Optional.empty());
  }

  @Test
  void theVirtualNodeSendsTheTokenFileAndRefusesAMissingOne() throws IOException {
    Path token = Files.writeString(tmp.resolve("token"), "t");
    assertThat(load(SEED, "VKTOKENFILE", token.toString()).tokenFile()).isEqualTo(token);

    assertThatThrownBy(() -> load(SEED).tokenFile()).isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("VKTokenFile /opt/interlink/token").hasMessageContaining("does not exist");
  }

  @Test
  void eachRoleWarnsOnceAboutKeysThatLostTheirMeaningThere() throws IOException {
    String path = pathWith("sbatch", "scancel");
    Map<String, String> env = env(SEED + "\nGetConfigMapsOrSecrets: true", "PATH", path, "SBATCHPATH", path + "/sbatch",
        "SCANCELPATH", path + "/scancel");
    InterLinkConfigFile file = InterLinkConfigFile.fromEnvironment(env).orElseThrow();

    assertThat(file.warnings(Role.VIRTUAL_NODE, env)).containsExactly(
        "GetConfigMapsOrSecrets: always on: the virtual node sends the ConfigMaps and Secrets a pod uses");
    assertThat(file.warnings(Role.API, env)).hasSize(2).anyMatch(w -> w.startsWith("VKTokenFile: interLink's API left"));
    assertThat(file.warnings(Role.PLUGIN, env)).containsExactly(
        "TsocksPath, TsocksConfig, TsocksLoginNode: unused, Tsocks is false");
  }

  @Test
  void thePluginRefusesTsocksACommandPrefixAndAnotherSbatchNamingWhatToUse() throws IOException {
    String path = pathWith("sbatch", "scancel");
    assertThatThrownBy(() -> load(SEED, "TSOCKS", "true").warnings(Role.PLUGIN, Map.of("PATH", path)))
        .hasMessageContaining("Tsocks: true is refused").hasMessageContaining("slurm-job.vk.io/pre-exec");
    assertThatThrownBy(() -> load(SEED.replace("CommandPrefix: \"\"", "CommandPrefix: \"module load singularity\""))
        .warnings(Role.PLUGIN, Map.of("PATH", path)))
        .hasMessageContaining("CommandPrefix 'module load singularity' is refused").hasMessageContaining("slurm-job.vk.io/pre-exec");

    InterLinkConfigFile file = load(SEED, "SBATCHPATH", path + "/sbatch", "SCANCELPATH", path + "/scancel");
    assertThat(file.warnings(Role.PLUGIN, Map.of("PATH", path))).as("the programs PATH finds").hasSize(1);
    assertThatThrownBy(() -> load(SEED).warnings(Role.PLUGIN, Map.of("PATH", path)))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining("SbatchPath /usr/bin/sbatch is refused: crigate's slurm backend runs the sbatch on its PATH, "
            + path + "/sbatch");
    assertThat(load(SEED).warnings(Role.PLUGIN, Map.of("PATH", tmp.resolve("empty").toString())))
        .contains("SbatchPath: no sbatch on this PATH; the slurm backend runs sbatch where its transport reaches Slurm");
  }

  private String pathWith(String... programs) throws IOException {
    Path bin = Files.createDirectories(tmp.resolve("bin"));
    for (String program : programs) {
      Path file = bin.resolve(program);
      if (!Files.exists(file)) {
        Files.writeString(file, "#!/bin/sh\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
      }
    }
    return bin.toString();
  }
}

package io.crigate.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.core.HandlerBinding;
import io.crigate.core.dump.DumpFormat;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigLoaderTest {

  private static final String CONTAINERD = "unix:///run/containerd/containerd.sock";

  @TempDir
  Path dir;

  @Test
  void multiCriFlagsAloneMakeOneCriBackendPerEntry() {
    GatewayConfig config = ConfigLoader.load(flags(null, "/tmp/c/crigate.sock", "/tmp/c/state",
        "default:" + CONTAINERD + ", gpu:unix:///run/gpu.sock"));

    assertThat(config.socket()).isEqualTo(Path.of("/tmp/c/crigate.sock"));
    assertThat(config.stateDir()).isEqualTo(Path.of("/tmp/c/state"));
    assertThat(config.backends()).extracting(BackendConfig::name, BackendConfig::type)
        .containsExactly(org.assertj.core.groups.Tuple.tuple("default", "cri"), org.assertj.core.groups.Tuple.tuple("gpu", "cri"));
    // only the first ':' separates the name, so the endpoint keeps its scheme
    assertThat(config.backends().get(0).settings().get("endpoint").asText()).isEqualTo(CONTAINERD);
    assertThat(config.bindings()).containsExactly(
        new HandlerBinding("default", "default", ""), new HandlerBinding("gpu", "gpu", ""));
    assertThat(config.warnings()).isEmpty();
  }

  @Test
  void defaultsApplyWhenOnlyBackendsAreGiven() {
    GatewayConfig config = ConfigLoader.load(flags(null, null, null, "default:" + CONTAINERD));

    assertThat(config.socket()).isEqualTo(GatewayConfig.DEFAULT_SOCKET);
    assertThat(config.stateDir()).isEqualTo(GatewayConfig.DEFAULT_STATE_DIR);
    assertThat(config.logLevel()).isEqualTo("info");
    assertThat(config.dump().rules().enabled()).isFalse();
    assertThat(config.dump().file()).isEmpty();
  }

  @Test
  void yamlFileDescribesBackendsHandlersAndDump() throws IOException {
    Path file = write("""
        socket: /tmp/y/crigate.sock
        stateDir: /tmp/y/state
        logLevel: debug
        backends:
          - name: containerd
            type: cri
            handlers: [default, runc, kata=kata-qemu]
            endpoint: unix:///run/containerd/containerd.sock
            connectTimeout: 2s
        dump:
          rules: ["off:.*", "full:CreateContainer"]
          file: /tmp/y/dump.jsonl
          format: json
          redactEnv: "(?i)PASS"
        """);

    GatewayConfig config = ConfigLoader.load(flags(file.toString(), null, null, null));

    assertThat(config.socket()).isEqualTo(Path.of("/tmp/y/crigate.sock"));
    assertThat(config.logLevel()).isEqualTo("debug");
    assertThat(config.bindings()).containsExactly(
        new HandlerBinding("default", "containerd", ""),
        new HandlerBinding("runc", "containerd", ""),
        new HandlerBinding("kata", "containerd", "kata-qemu"));
    BackendConfig backend = config.backends().get(0);
    // name, type and handlers are crigate's; everything else belongs to the factory
    assertThat(backend.settings().fieldNames()).toIterable().containsExactly("endpoint", "connectTimeout");
    assertThat(config.dump().rules().rules()).hasToString("[off:.*, full:CreateContainer]");
    assertThat(config.dump().file()).contains(Path.of("/tmp/y/dump.jsonl"));
    assertThat(config.dump().format()).isEqualTo(DumpFormat.JSON);
    assertThat(config.dump().redactEnv().pattern()).isEqualTo("(?i)PASS");
  }

  @Test
  void yamlListOfDumpRulesTakesEveryFormTheStringTakes() throws IOException {
    // CRI Resource Manager's forms, one per element: reset, a level-less entry, an alias, disable/enable
    Path file = write("""
        backends: [{name: default, type: cri, handlers: [default], endpoint: "unix:///x.sock"}]
        dump:
          rules: ["full:.*", reset, "suppress:Version", ".*List.{1,9}", disable, enable, "long:CreateContainer"]
        """);

    GatewayConfig config = ConfigLoader.load(flags(file.toString(), null, null, null));

    // the list's elements are not split at commas: ".*List.{1,9}" stays one regex
    assertThat(config.dump().rules().rules())
        .hasToString("[off:Version, off:.*List.{1,9}, full:CreateContainer]");
  }

  @Test
  void flagsOverrideTheFileKeyByKey() throws IOException {
    Path file = write("""
        socket: /tmp/y/file.sock
        stateDir: /tmp/y/state
        backends:
          - {name: default, type: cri, handlers: [default], endpoint: "unix:///from/file.sock"}
          - {name: batch, type: cri, handlers: [batch], endpoint: "unix:///batch.sock"}
        dump: {rules: "full:.*", file: /tmp/y/dump.yaml, format: json}
        """);

    GatewayConfig config = ConfigLoader.load(new ConfigFlags(file.toString(), "/tmp/y/flag.sock", null,
        "default:unix:///from/flag.sock,extra:unix:///extra.sock", "short:.*", "-", null, null, null));

    assertThat(config.socket()).isEqualTo(Path.of("/tmp/y/flag.sock"));
    assertThat(config.stateDir()).isEqualTo(Path.of("/tmp/y/state"));
    // a flag backend replaces the file's backend of the same name; others are kept or appended
    assertThat(config.backends()).extracting(BackendConfig::name).containsExactly("default", "batch", "extra");
    assertThat(config.backends().get(0).settings().get("endpoint").asText()).isEqualTo("unix:///from/flag.sock");
    assertThat(config.dump().rules()).hasToString("[short:.*]");
    assertThat(config.dump().file()).isEmpty(); // '-' is stderr
    assertThat(config.dump().format()).isEqualTo(DumpFormat.JSON); // not given as a flag: the file's
  }

  /** A command on a stopped gateway's state needs the directory only: a file without backends still names it. */
  @Test
  void theStateDirAloneComesFromTheFlagThenTheFileThenTheDefault() throws IOException {
    Path file = write("stateDir: /tmp/y/state\n");

    assertThat(ConfigLoader.stateDir(flags(file.toString(), null, null, null))).isEqualTo(Path.of("/tmp/y/state"));
    assertThat(ConfigLoader.stateDir(flags(file.toString(), null, "/tmp/y/flag", null))).isEqualTo(Path.of("/tmp/y/flag"));
    assertThat(ConfigLoader.stateDir(flags(null, null, null, null))).isEqualTo(GatewayConfig.DEFAULT_STATE_DIR);
    Path typo = write("stateDri: /tmp/y/state\n");
    assertThatThrownBy(() -> ConfigLoader.stateDir(flags(typo.toString(), null, null, null)))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unknown top-level key 'stateDri'");
  }

  @Test
  void missingDefaultHandlerIsAllowedButWarned() {
    GatewayConfig config = ConfigLoader.load(flags(null, null, null, "gpu:" + CONTAINERD));

    assertThat(config.warnings()).singleElement().asString().contains("'default' handler");
  }

  record Case(String name, String yaml, ConfigFlags flags, String message) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> invalid() {
    String backend = "backends: [{name: a, type: cri, handlers: [default], endpoint: 'unix:///a.sock'}]\n";
    return Stream.of(
        new Case("no backends at all", "", null, "no backends configured"),
        new Case("endpoint flag entry without endpoint", null, flags(null, null, null, "default"),
            "entry 'default' is missing its endpoint"),
        new Case("endpoint flag entry without name", null, flags(null, null, null, ":unix:///a.sock"),
            "entry ':unix:///a.sock' is missing its name"),
        new Case("empty endpoint flag", null, flags(null, null, null, " , "), "--remote-runtime-endpoints is empty"),
        new Case("duplicate handler across backends", """
            backends:
              - {name: a, type: cri, handlers: [default], endpoint: 'unix:///a.sock'}
              - {name: b, type: cri, handlers: [gpu, default], endpoint: 'unix:///b.sock'}
            """, null, "handler 'default' is bound twice: by backend 'a' and by backend 'b'"),
        new Case("duplicate backend name", null, flags(null, null, null, "x:unix:///a.sock,x:unix:///b.sock"),
            "backend name 'x' is used twice"),
        new Case("backend without type", "backends: [{name: a, handlers: [default]}]", null, "backend 'a' has no 'type'"),
        new Case("backend without name", "backends: [{type: cri, handlers: [default]}]", null, "backends[0] has no 'name'"),
        new Case("backend name unusable as directory", "backends: [{name: ../x, type: cri, handlers: [default]}]", null,
            "backend name '../x' may only hold"),
        new Case("backend without handlers", "backends: [{name: a, type: cri, handler: [default]}]", null,
            "backend 'a' binds no handlers"),
        new Case("malformed handler entry", "backends: [{name: a, type: cri, handlers: ['x=y=z']}]", null,
            "handler entry \"x=y=z\" is not 'name' or 'name=remoteHandler'"),
        new Case("handler with empty name", "backends: [{name: a, type: cri, handlers: ['=kata']}]", null,
            "is not 'name' or 'name=remoteHandler'"),
        new Case("unknown top-level key", backend + "sokcet: /x.sock\n", null,
            "unknown top-level key 'sokcet' (known: socket, socketGroup, maxCallsPerConnection, stateDir, logLevel, "
                + "backends, dump, images, policy, nri, streaming, metrics, logging, hooks)"),
        new Case("backends not a list", "backends: {name: a}\n", null, "'backends' must be a list"),
        new Case("backend entry not a mapping", "backends: [a]\n", null, "'backends[0]' must be a mapping"),
        new Case("handlers not a list", "backends: [{name: a, type: cri, handlers: default}]\n", null,
            "'backends[0].handlers' must be a list"),
        new Case("timeout without a unit", "backends: [{name: a, type: cri, handlers: [default], callTimeout: 10}]\n", null,
            "'backends[0].callTimeout' must be a positive duration such as 500ms, 5s, 1m30s or PT5S"),
        new Case("zero probe interval", "backends: [{name: a, type: cri, handlers: [default], probeInterval: 0s}]\n", null,
            "'backends[0].probeInterval' must be a positive duration"),
        new Case("fractional call limit", backend + "maxCallsPerConnection: 1.5\n", null,
            "'maxCallsPerConnection' must be a whole number"),
        new Case("nri section not a mapping", backend + "nri: /run/nri.sock\n", null, "'nri' must be a mapping"),
        new Case("unknown dump key", backend + "dump: {level: full}\n", null,
            "unknown dump key 'level' (known: rules, file, format, redactEnv)"),
        new Case("unknown dump level", backend + "dump: {rules: 'verbose:.*'}\n", null, "unknown dump level 'verbose'"),
        new Case("dump rule without level", backend + "dump: {rules: 'CreateContainer'}\n", null,
            "dump rule 'CreateContainer' is not level:regex"),
        new Case("dump rule with a bad regex", backend + "dump: {rules: 'full:(Create'}\n", null,
            "dump rule 'full:(Create' has an invalid regex"),
        new Case("unknown dump format", backend + "dump: {format: xml}\n", null, "unknown dump format 'xml'"),
        new Case("bad redaction regex", backend + "dump: {redactEnv: '[a'}\n", null, "redactEnv '[a' is not a valid regex"),
        new Case("unknown log level", backend + "logLevel: loud\n", null, "unknown log level 'loud'"),
        new Case("socket path too long for sun_path", backend + "socket: /" + "s".repeat(120) + "\n", null,
            "longer than the 107 bytes"),
        new Case("duplicate YAML key", backend + "socket: /a.sock\nsocket: /b.sock\n", null, "Duplicate field 'socket'"),
        new Case("YAML syntax error", "backends: [\n", null, "line "),
        new Case("top level not a mapping", "- a\n- b\n", null, "the top level must be a mapping"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalid")
  void invalidConfigurationNamesTheProblem(Case c) throws IOException {
    ConfigFlags given = c.yaml() == null ? c.flags() : flags(write(c.yaml()).toString(), null, null, null);

    assertThatThrownBy(() -> ConfigLoader.load(given))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessageContaining(c.message());
  }

  @Test
  void backendTimeoutsTakeGoDurationsAndDefaultPerKey() throws IOException {
    GatewayConfig config = ConfigLoader.load(flags(write("""
        backends:
          - {name: a, type: cri, handlers: [default], endpoint: "unix:///a.sock", callTimeout: 2m30s, probeTimeout: 500ms}
        """).toString(), null, null, null));

    BackendConfig backend = config.backends().get(0);
    assertThat(backend.timeouts()).isEqualTo(new BackendTimeouts(java.time.Duration.ofSeconds(150),
        BackendTimeouts.DEFAULTS.probeInterval(), java.time.Duration.ofMillis(500)));
    // crigate's keys are taken out; only the type's own settings reach its factory
    assertThat(backend.settings().fieldNames()).toIterable().containsExactly("endpoint");
  }

  @Test
  void missingConfigFileIsNamed() {
    Path missing = dir.resolve("nope.yaml");

    assertThatThrownBy(() -> ConfigLoader.load(flags(missing.toString(), null, null, null)))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage("config file %s does not exist".formatted(missing));
  }

  @Test
  void settingsStayOutOfTheBackendsStringForm() {
    GatewayConfig config = ConfigLoader.load(flags(null, null, null, "default:unix:///secret-path.sock"));

    assertThat(List.of(config.backends().get(0).toString())).noneMatch(s -> s.contains("secret-path"));
  }

  /** Issue 16 item 12. */
  @Test
  void socketGroupAndCallsPerConnectionAreReadAndCheckedWithDefaults() throws IOException {
    GatewayConfig defaults = ConfigLoader.load(flags(null, null, null, "default:" + CONTAINERD));
    assertThat(defaults.socketGroup()).isEmpty();
    assertThat(defaults.maxCallsPerConnection()).isEqualTo(GatewayConfig.DEFAULT_MAX_CALLS_PER_CONNECTION);

    GatewayConfig set = ConfigLoader.load(flags(write("""
        socketGroup: kube
        maxCallsPerConnection: 64
        backends: [{name: c, type: cri, handlers: [default], endpoint: "unix:///c.sock"}]
        """).toString(), null, null, null));
    assertThat(set.socketGroup()).contains("kube");
    assertThat(set.maxCallsPerConnection()).isEqualTo(64);

    Path zero = write("maxCallsPerConnection: 0\nbackends: [{name: c, type: cri, handlers: [default], endpoint: \"unix:///c.sock\"}]\n");
    assertThatThrownBy(() -> ConfigLoader.load(flags(zero.toString(), null, null, null)))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("maxCallsPerConnection");
  }

  private Path write(String yaml) throws IOException {
    Path file = Files.createTempFile(dir, "crigate", ".yaml");
    return Files.writeString(file, yaml);
  }

  private static ConfigFlags flags(String config, String socket, String stateDir, String endpoints) {
    return new ConfigFlags(config, socket, stateDir, endpoints, null, null, null, null, null);
  }
}

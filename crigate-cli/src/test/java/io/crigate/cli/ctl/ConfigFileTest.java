package io.crigate.cli.ctl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Message;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.NamespaceMode;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.Signal;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Predicate;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class ConfigFileTest {

  @TempDir Path dir;

  record Case(
      String name,
      String fileName,
      String text,
      Supplier<Message.Builder> builder,
      Predicate<Message> expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> validConfigs() {
    return Stream.of(
        // crictl's own sandbox-config.json shape: snake_case, enum as a number (2 = NODE)
        new Case(
            "pod json, snake_case, enum number",
            "pod.json",
            """
            {"metadata": {"name": "p", "namespace": "ns", "uid": "u1", "attempt": 1},
             "log_directory": "/tmp/logs",
             "linux": {"security_context": {"namespace_options": {"network": 2}}}}
            """,
            PodSandboxConfig::newBuilder,
            m -> {
              PodSandboxConfig pod = (PodSandboxConfig) m;
              return pod.getMetadata().getName().equals("p")
                  && pod.getMetadata().getNamespace().equals("ns")
                  && pod.getMetadata().getUid().equals("u1")
                  && pod.getMetadata().getAttempt() == 1
                  && pod.getLogDirectory().equals("/tmp/logs")
                  && pod.getLinux().getSecurityContext().getNamespaceOptions().getNetwork()
                      == NamespaceMode.NODE;
            }),
        // the same pod in YAML with the enum by name and lowerCamel keys
        new Case(
            "pod yaml, lowerCamel, enum name",
            "pod.yaml",
            """
            metadata: {name: p, namespace: ns, uid: u1}
            logDirectory: /tmp/logs
            linux:
              securityContext:
                namespaceOptions:
                  network: NODE
                  pid: CONTAINER
            """,
            PodSandboxConfig::newBuilder,
            m -> {
              PodSandboxConfig pod = (PodSandboxConfig) m;
              return pod.getLogDirectory().equals("/tmp/logs")
                  && pod.getLinux().getSecurityContext().getNamespaceOptions().getNetwork()
                      == NamespaceMode.NODE
                  && pod.getLinux().getSecurityContext().getNamespaceOptions().getPid()
                      == NamespaceMode.CONTAINER;
            }),
        // env values are plain text in crictl configs although KeyValue.value is bytes here
        new Case(
            "container yaml, env text, command, stop signal",
            "container.yml",
            """
            metadata: {name: c}
            image: {image: "127.0.0.1:5000/crigate/demo:v1"}
            command: [/bin/sh, -c]
            args: ["echo hi"]
            envs:
              - {key: GREETING, value: hello world}
            log_path: c.log
            stop_signal: SIGTERM
            """,
            ContainerConfig::newBuilder,
            m -> {
              ContainerConfig c = (ContainerConfig) m;
              return c.getMetadata().getName().equals("c")
                  && c.getImage().getImage().equals("127.0.0.1:5000/crigate/demo:v1")
                  && c.getCommandList().equals(java.util.List.of("/bin/sh", "-c"))
                  && c.getArgsList().equals(java.util.List.of("echo hi"))
                  && c.getEnvs(0).getKey().equals("GREETING")
                  && c.getEnvs(0).getValue().toString(StandardCharsets.UTF_8).equals("hello world")
                  && c.getLogPath().equals("c.log")
                  && c.getStopSignal() == Signal.SIGTERM;
            }),
        new Case(
            "container json, mounts and labels",
            "container.json",
            """
            {"metadata": {"name": "c"}, "image": {"image": "busybox"},
             "mounts": [{"container_path": "/data", "host_path": "/tmp/data", "readonly": true,
                         "propagation": 1}],
             "labels": {"app": "x"}}
            """,
            ContainerConfig::newBuilder,
            m -> {
              ContainerConfig c = (ContainerConfig) m;
              return c.getMounts(0).getContainerPath().equals("/data")
                  && c.getMounts(0).getReadonly()
                  && c.getMounts(0).getPropagationValue() == 1
                  && c.getLabelsMap().equals(java.util.Map.of("app", "x"));
            }));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("validConfigs")
  void readsCrictlShapedConfigs(Case c) throws IOException {
    Path file = Files.writeString(dir.resolve(c.fileName()), c.text());

    Message parsed = ConfigFile.read(file, c.builder().get()).build();

    assertThat(c.expected()).accepts(parsed);
  }

  record BadCase(String name, String fileName, String text, String messagePart) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<BadCase> badConfigs() {
    return Stream.of(
        new BadCase(
            "unknown field is named",
            "pod.yaml",
            "metadata: {name: p}\nlog_directry: /tmp\n",
            "log_directry"),
        new BadCase(
            "unknown nested field is named",
            "pod.json",
            "{\"metadata\": {\"name\": \"p\", \"nmespace\": \"x\"}}",
            "nmespace"),
        new BadCase(
            "unknown enum name",
            "pod.yaml",
            "linux: {security_context: {namespace_options: {network: HOSTNET}}}\n",
            "HOSTNET"),
        new BadCase("broken JSON syntax", "pod.json", "{\"metadata\": ", "pod.json"),
        new BadCase("not an object", "pod.yaml", "- a\n- b\n", "PodSandboxConfig object"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badConfigs")
  void rejectsBadConfigsNamingFileAndProblem(BadCase c) throws IOException {
    Path file = Files.writeString(dir.resolve(c.fileName()), c.text());

    assertThatThrownBy(() -> ConfigFile.read(file, PodSandboxConfig.newBuilder()))
        .isInstanceOf(InvalidArgument.class)
        .hasMessageStartingWith(file.toString())
        .hasMessageContaining(c.messagePart());
  }

  @Test
  void missingFileIsNamed() {
    Path file = dir.resolve("absent.json");

    assertThatThrownBy(() -> ConfigFile.read(file, PodSandboxConfig.newBuilder()))
        .isInstanceOf(InvalidArgument.class)
        .hasMessage(file + ": no such file");
  }

  @Test
  void exampleConfigsInTheRepositoryParse() {
    Path examples = Path.of("..", "examples", "ctl");

    PodSandboxConfig pod =
        ConfigFile.read(examples.resolve("pod.json"), PodSandboxConfig.newBuilder()).build();
    ContainerConfig container =
        ConfigFile.read(examples.resolve("container.yaml"), ContainerConfig.newBuilder()).build();

    assertThat(pod.getLinux().getSecurityContext().getNamespaceOptions().getNetwork())
        .isEqualTo(NamespaceMode.NODE);
    assertThat(pod.getHostname()).isEmpty();
    assertThat(container.getImage().getImage()).isEqualTo("127.0.0.1:5000/crigate/demo:v1");
    assertThat(container.getLogPath()).isNotEmpty();
  }
}

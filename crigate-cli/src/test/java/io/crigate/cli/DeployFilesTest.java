package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import io.crigate.metrics.MetricsSettings;
import io.crigate.streaming.StreamingSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The deploy/ and examples/ files crigate ships, read as what they claim to be, without helm: the
 * node configuration of the Helm chart must be one crigate starts with, and the manifests must have
 * the shape Kubernetes expects. The templates themselves are rendered in crigate-it's HelmChartIT.
 */
class DeployFilesTest {

  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path CHART = ROOT.resolve("deploy/helm/crigate");
  private static final ObjectMapper YAML = new YAMLMapper();
  /** A RuntimeClass handler is a DNS label (node.k8s.io/v1 validation). */
  private static final String DNS_LABEL = "[a-z0-9]([-a-z0-9]*[a-z0-9])?";

  static List<JsonNode> documents(Path file) throws IOException {
    List<JsonNode> documents = new ArrayList<>();
    try (MappingIterator<JsonNode> all = YAML.readerFor(JsonNode.class).readValues(file.toFile())) {
      all.forEachRemaining(document -> {
        if (document != null && !document.isNull() && !document.isEmpty()) {
          documents.add(document);
        }
      });
    }
    return documents;
  }

  @Test
  void theChartsNodeConfigurationIsOneCrigateAccepts(@TempDir Path dir) throws IOException {
    JsonNode values = YAML.readTree(CHART.resolve("values.yaml").toFile());
    Path config = dir.resolve("crigate.yaml");
    YAML.writeValue(config.toFile(), values.path("node").path("config"));

    GatewayConfig read = ConfigLoader.load(new ConfigFlags(config.toString(), null, null, null, null, null, null,
        null, null));

    assertThat(read.socket()).isEqualTo(Path.of("/run/crigate/crigate.sock"));
    assertThat(read.backends()).isNotEmpty();
    MetricsSettings metrics = MetricsSettings.parse(read.metrics());
    assertThat(metrics.enabled()).isTrue();
    assertThat(metrics.address().isLoopbackAddress()).as("the node's metrics stay on loopback").isTrue();
    StreamingSettings.parse(read.streaming());
    Logging.parse(read.logLevel(), read.logging());
  }

  /** Mebibytes of a Kubernetes memory quantity in Mi or Gi (the forms these files use). */
  static long mebibytes(String quantity) {
    if (quantity.endsWith("Gi")) {
      return Long.parseLong(quantity.substring(0, quantity.length() - 2)) * 1024;
    }
    assertThat(quantity).endsWith("Mi");
    return Long.parseLong(quantity.substring(0, quantity.length() - 2));
  }

  /**
   * bin/crigate runs the extender with a fixed heap (-Xmx, in MiB); its pod must request what the
   * process keeps resident with it (~1 GiB measured, heap plus a third) and be allowed half as much
   * again, in the chart and in deploy/scheduler's manifest alike.
   */
  @Test
  void theExtendersMemoryFitsTheHeapBinCrigateGivesIt() throws IOException {
    String launcher = Files.readString(ROOT.resolve("bin/crigate"));
    var options = java.util.regex.Pattern.compile("\\[ \"\\$command_name\" = extender \\] && memory_opts=\\(([^)]*)\\)")
        .matcher(launcher);
    assertThat(options.find()).as("bin/crigate sets the extender's JVM options").isTrue();
    var xmx = java.util.regex.Pattern.compile("-Xmx(\\d+)m").matcher(options.group(1));
    assertThat(xmx.find()).as("a fixed heap in %s", options.group(1)).isTrue();
    long heap = Long.parseLong(xmx.group(1));
    assertThat(options.group(1)).contains("-Xms" + heap + "m", "-XX:+UseG1GC");

    JsonNode chart = YAML.readTree(CHART.resolve("values.yaml").toFile()).path("extender").path("resources");
    JsonNode manifest = documents(ROOT.resolve("deploy/scheduler/extender.yaml")).stream()
        .filter(d -> d.path("kind").asText().equals("Deployment")).findFirst().orElseThrow()
        .path("spec").path("template").path("spec").path("containers").path(0).path("resources");
    for (JsonNode resources : List.of(chart, manifest)) {
      long request = mebibytes(resources.path("requests").path("memory").asText());
      long limit = mebibytes(resources.path("limits").path("memory").asText());
      assertThat(request).as("request against heap %d MiB", heap).isGreaterThanOrEqualTo(heap * 4 / 3);
      assertThat(limit).as("limit against request").isGreaterThanOrEqualTo(request * 3 / 2);
    }
  }

  @Test
  void theChartHasItsMetadataAndAValuesSectionPerPart() throws IOException {
    JsonNode chart = YAML.readTree(CHART.resolve("Chart.yaml").toFile());
    JsonNode values = YAML.readTree(CHART.resolve("values.yaml").toFile());

    assertThat(chart.path("apiVersion").asText()).isEqualTo("v2");
    assertThat(chart.path("name").asText()).isEqualTo("crigate");
    assertThat(chart.path("version").asText()).matches("\\d+\\.\\d+\\.\\d+");
    assertThat(values.path("node").path("enabled").isBoolean()).isTrue();
    assertThat(values.path("extender").path("enabled").isBoolean()).isTrue();
    assertThat(values.path("extender").path("port").isInt()).isTrue();
    assertThat(values.path("virtualNode").path("enabled").asBoolean(true)).as("the virtual node is opt-in").isFalse();
    for (JsonNode runtimeClass : values.path("runtimeClasses")) {
      assertThat(runtimeClass.path("name").asText()).matches(DNS_LABEL);
      assertThat(runtimeClass.path("handler").asText()).matches(DNS_LABEL);
    }
  }

  @Test
  void runtimeClassExamplesAreRuntimeClassesAndTheirPodsUseThem() throws IOException {
    List<Path> examples;
    try (Stream<Path> files = Files.list(ROOT.resolve("examples/runtimeclass"))) {
      examples = files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList();
    }
    assertThat(examples).isNotEmpty();
    for (Path example : examples) {
      List<JsonNode> documents = documents(example);
      List<JsonNode> classes = documents.stream().filter(d -> d.path("kind").asText().equals("RuntimeClass")).toList();
      assertThat(classes).as(example + " defines a RuntimeClass").isNotEmpty();
      for (JsonNode runtimeClass : classes) {
        assertThat(runtimeClass.path("apiVersion").asText()).isEqualTo("node.k8s.io/v1");
        assertThat(runtimeClass.path("metadata").path("name").asText()).matches(DNS_LABEL);
        assertThat(runtimeClass.path("handler").asText()).as("handler is top level, not under spec").matches(DNS_LABEL);
        assertThat(runtimeClass.has("spec")).isFalse();
      }
      Set<String> names = classes.stream().map(c -> c.path("metadata").path("name").asText()).collect(Collectors.toSet());
      documents.stream().filter(d -> d.path("kind").asText().equals("Pod")).forEach(pod -> {
        assertThat(pod.path("apiVersion").asText()).isEqualTo("v1");
        assertThat(names).contains(pod.path("spec").path("runtimeClassName").asText());
        assertThat(pod.path("spec").path("containers")).isNotEmpty();
      });
    }
  }

  /**
   * systemd's own checks: {@code verify} (syntax, directives) and {@code security --offline} (the
   * hardening score; 5.0 is "OK" on systemd's 0-10 exposure scale). ExecStart points at a binary
   * that exists here, since verify checks it.
   */
  @Test
  void theSystemdUnitIsValidHardenedAndWaitsForReadiness(@TempDir Path dir) throws Exception {
    String unit = Files.readString(ROOT.resolve("deploy/systemd/crigate.service"));
    assertThat(unit).contains("Type=notify").contains("NotifyAccess=main").doesNotContain("ExecStartPost=")
        .contains("ExecReload=/bin/kill -HUP $MAINPID").contains("Before=kubelet.service");
    Path copy = dir.resolve("crigate.service");
    Files.writeString(copy, unit.replace("/opt/crigate/bin/crigate", "/bin/true"));

    assertThat(run(dir, "systemd-analyze", "verify", "--man=no", copy.toString())).isEqualTo("");
    assertThat(run(dir, "systemd-analyze", "security", "--offline=yes", "--threshold=50", copy.toString()))
        .contains("Overall exposure level for crigate.service");
  }

  private static String run(Path dir, String... command) throws Exception {
    Process process = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes());
    assertThat(process.waitFor()).as(String.join(" ", command) + ":\n" + output).isZero();
    return output.strip();
  }
}

package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/helm/crigate rendered by text/template with sprig (src/test/go/src/helmrender, since
 * Debian 12 packages no helm): every part's objects come out well formed, switched parts vanish,
 * and every flag a template passes to crigate is one the built CLI accepts.
 */
class HelmChartIT {

  private static final ObjectMapper YAML = new YAMLMapper();
  private static final Path CHART = Infra.repositoryRoot().resolve("deploy/helm/crigate");

  @TempDir static Path work;
  static Path renderer;

  record Rendered(int exit, String output, List<JsonNode> objects) {
    List<JsonNode> kind(String kind) {
      return objects.stream().filter(o -> o.path("kind").asText().equals(kind)).toList();
    }

    JsonNode named(String kind, String name) {
      return kind(kind).stream().filter(o -> o.path("metadata").path("name").asText().equals(name)).findFirst()
          .orElseThrow(() -> new AssertionError(kind + " " + name + " not rendered:\n" + output));
    }
  }

  @BeforeAll
  static void buildRenderer() throws Exception {
    renderer = GoProgram.build(work.resolve("go"), "helmrender", "github.com/Masterminds/sprig",
        "golang-github-masterminds-sprig-dev");
  }

  @Test
  void defaultValuesRenderTheNodeTheExtenderAndTheRuntimeClassesButNoVirtualNode() throws Exception {
    Rendered rendered = render();

    assertThat(rendered.exit()).as(rendered.output()).isZero();
    for (JsonNode object : rendered.objects()) {
      assertThat(object.path("apiVersion").asText()).as("apiVersion of %s", object).isNotEmpty();
      assertThat(object.path("metadata").path("name").asText()).as("name of %s", object).isNotEmpty();
    }
    JsonNode node = rendered.named("DaemonSet", "rel-node");
    assertThat(args(node)).startsWith("serve", "--config");
    JsonNode config = YAML.readTree(rendered.named("ConfigMap", "rel-node").path("data").path("crigate.yaml").asText());
    assertThat(config.path("socket").asText()).isEqualTo("/run/crigate/crigate.sock");
    assertThat(rendered.named("Deployment", "rel-extender")).isNotNull();
    assertThat(rendered.kind("RuntimeClass")).extracting(o -> o.path("handler").asText()).contains("slurm");
    assertThat(rendered.kind("Deployment")).extracting(o -> o.path("metadata").path("name").asText())
        .doesNotContain("rel-virtual-node");
  }

  @Test
  void theVirtualNodePartRendersItsDeploymentFromItsValues() throws Exception {
    Rendered rendered = render("""
        virtualNode:
          enabled: true
          nodeName: hpc-north
          apiUrl: https://interlink.hpc.example:3000
          secretName: north-secrets
          capacity: {cpu: "128", nvidia.com/gpu: "8"}
        extender: {enabled: false}
        """);

    assertThat(rendered.exit()).as(rendered.output()).isZero();
    JsonNode deployment = rendered.named("Deployment", "rel-virtual-node");
    assertThat(args(deployment)).contains("virtual-node", "--node-name=hpc-north",
        "--api-url=https://interlink.hpc.example:3000", "--capacity=cpu=128", "--capacity=nvidia.com/gpu=8",
        "--api-token-file=/etc/vnode/api-token");
    JsonNode pod = deployment.path("spec").path("template").path("spec");
    assertThat(pod.path("serviceAccountName").asText()).isEqualTo("rel-virtual-node");
    assertThat(pod.path("volumes").get(0).path("secret").path("secretName").asText()).isEqualTo("north-secrets");
    assertThat(rendered.named("ClusterRoleBinding", "rel-virtual-node").path("subjects").get(0).path("namespace").asText())
        .isEqualTo("crigate-system");
    assertThat(rendered.kind("Deployment")).extracting(o -> o.path("metadata").path("name").asText())
        .doesNotContain("rel-extender");
  }

  @Test
  void aVirtualNodeWithoutItsApiUrlIsRefusedByName() throws Exception {
    Rendered rendered = render("""
        virtualNode: {enabled: true, apiUrl: ""}
        """);

    assertThat(rendered.exit()).isNotZero();
    assertThat(rendered.output()).contains("virtualNode.apiUrl is required");
  }

  @Test
  void everyFlagTheTemplatesPassIsOneTheCrigateCliAccepts() throws Exception {
    Rendered rendered = render("""
        virtualNode: {enabled: true}
        extender: {filter: true, insecureRegistries: [registry.local:5000]}
        """);
    assertThat(rendered.exit()).as(rendered.output()).isZero();

    List<List<String>> commands = new ArrayList<>();
    for (String kind : List.of("DaemonSet", "Deployment")) {
      rendered.kind(kind).forEach(object -> commands.add(args(object)));
    }
    assertThat(commands).extracting(command -> command.get(0)).contains("serve", "extender", "virtual-node");
    for (List<String> command : commands) {
      String help = crigateHelp(command.get(0));
      for (String argument : command.subList(1, command.size())) {
        if (argument.startsWith("-")) {
          String flag = argument.split("=", 2)[0];
          assertThat(help).as("`crigate %s --help` lists %s", command.get(0), flag).containsPattern("(^|[ ,])" + flag + "\\b");
        }
      }
    }
  }

  private static List<String> args(JsonNode workload) {
    JsonNode container = workload.path("spec").path("template").path("spec").path("containers").get(0);
    return StreamSupport.stream(container.path("args").spliterator(), false).map(JsonNode::asText).toList();
  }

  private static String crigateHelp(String command) throws IOException, InterruptedException {
    Process process = new ProcessBuilder(Infra.repositoryRoot().resolve("bin/crigate").toString(), command, "--help")
        .redirectErrorStream(true).start();
    String help = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    assertThat(process.exitValue()).as("crigate %s --help:%n%s", command, help).isZero();
    return help;
  }

  private static Rendered render(String... valueFiles) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of(renderer.toString(), CHART.toString(), "rel", "crigate-system"));
    for (String values : valueFiles) {
      Path file = Files.createTempFile(work, "values", ".yaml");
      Files.writeString(file, values);
      command.add(file.toString());
    }
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    List<JsonNode> objects = new ArrayList<>();
    if (process.exitValue() == 0) {
      try (MappingIterator<JsonNode> documents = YAML.readerFor(JsonNode.class).readValues(output)) {
        documents.forEachRemaining(document -> {
          if (document != null && !document.isNull() && !document.isEmpty()) {
            objects.add(document);
          }
        });
      }
    }
    return new Rendered(process.exitValue(), output, objects);
  }
}

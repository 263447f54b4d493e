package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.core.config.ConfigFlags;
import io.crigate.core.config.ConfigLoader;
import io.crigate.core.config.GatewayConfig;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code crigate migrate} on the seed documents' own examples. */
class MigrateCommandTest {

  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  @TempDir
  Path dir;
  final StringWriter out = new StringWriter();
  final StringWriter err = new StringWriter();

  int migrate(String... args) {
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] all = new String[args.length + 1];
    all[0] = "migrate";
    System.arraycopy(args, 0, all, 1, args.length);
    return cli.execute(all);
  }

  @Test
  void criRmReadmeDumperCommandLineCarriesOverWhole() throws Exception {
    int exit = migrate("--", "./cmd/cri-resmgr/cri-resmgr", "-policy", "null", "-dump", "reset,full:.*",
        "-dump-file", "/tmp/cri.dump");

    assertThat(err.toString()).isEmpty();
    assertThat(exit).isZero();
    JsonNode yaml = YAML.readTree(out.toString());
    assertThat(yaml.at("/policy/active").asText()).isEqualTo("none");
    assertThat(yaml.at("/dump/rules").asText()).isEqualTo("reset,full:.*");
    assertThat(yaml.at("/dump/file").asText()).isEqualTo("/tmp/cri.dump");
    // no --runtime-socket: CRI Resource Manager relays to dockershim, so crigate's default backend does too
    assertThat(yaml.at("/backends/0/endpoint").asText()).isEqualTo("/var/run/dockershim.sock");
    // nor --relay-socket: crigate listens where CRI Resource Manager did, the socket the README's kubelet names
    assertThat(yaml.get("socket").asText()).isEqualTo("/var/run/cri-relay.sock");
    // what migrate prints is a configuration crigate accepts as is
    Path file = Files.writeString(dir.resolve("crigate.yaml"), out.toString());
    GatewayConfig config = ConfigLoader.load(new ConfigFlags(file.toString(), null, null, null, null, null, null, null, null));
    assertThat(config.dump().rules().enabled()).isTrue();
  }

  @Test
  void multiCriUnitCommandLineNamesWhatIsDroppedAndExits1() throws Exception {
    int exit = migrate("--", "/usr/local/bin/multi-cri", "-v", "3", "--socket-path", "/var/run/multi-cri.sock",
        "--remote-runtime-endpoints", "default:/var/run/dockershim.sock", "--enable-pod-persistence");

    assertThat(exit).isEqualTo(1);
    JsonNode yaml = YAML.readTree(out.toString());
    assertThat(yaml.get("socket").asText()).isEqualTo("/var/run/multi-cri.sock");
    assertThat(yaml.get("logLevel").asText()).isEqualTo("debug");
    assertThat(yaml.get("backends")).extracting(b -> b.get("name").asText()).containsExactly("slurm", "default");
    assertThat(yaml.at("/backends/1/endpoint").asText()).isEqualTo("/var/run/dockershim.sock");
    assertThat(err.toString().lines().toList()).containsExactly(
        "dropped --enable-pod-persistence: always on: crigate keeps pods and containers in its ownership database under the state directory");
  }

  @Test
  void criRmReadmeAgentCommandLineBecomesThePolicyKubernetesSection() throws Exception {
    // CRI Resource Manager's README: NODE_NAME=<my node name> cri-resmgr-agent -kubeconfig <path to kubeconfig>
    int exit = migrate("--", "NODE_NAME=node-7", "cri-resmgr-agent", "-kubeconfig", "/etc/kubernetes/kubelet.conf");

    assertThat(exit).isEqualTo(1);
    JsonNode yaml = YAML.readTree(out.toString());
    assertThat(yaml.at("/policy/kubernetes/node").asText()).isEqualTo("node-7");
    assertThat(err.toString().lines().toList()).containsExactly("dropped -kubeconfig /etc/kubernetes/kubelet.conf: crigate reads "
        + "the kubeconfig named by the KUBECONFIG variable (else ~/.kube/config, else the pod's service account): run crigate "
        + "serve with KUBECONFIG=/etc/kubernetes/kubelet.conf");
    // what migrate prints is a policy section crigate accepts, beside the serve flags naming the runtime
    Path file = Files.writeString(dir.resolve("crigate.yaml"), out.toString());
    ConfigLoader.load(new ConfigFlags(file.toString(), null, null, "default:unix:///run/containerd/containerd.sock",
        null, null, null, null, null));
  }

  @Test
  void criRmReadmeStaticConfigFile() throws Exception {
    Path config = Files.writeString(dir.resolve("static.cfg"), """
        policy:
          ReservedResources:
            CPU: 1
          Active: static
        """);

    int exit = migrate("--config", config.toString());

    assertThat(exit).isZero();
    assertThat(YAML.readTree(out.toString()).get("policy"))
        .isEqualTo(YAML.readTree("{active: static, reservedCpus: 'quantity:1'}"));
  }

  @Test
  void criRmConfigMapsBecomeCrigateConfigMapsOfTheSameScope() throws Exception {
    Path configMaps = Files.writeString(dir.resolve("cms.yaml"), """
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cri-resmgr-config.default
          namespace: kube-system
        data:
          policy: |+
            ReservedResources:
              CPU: 1
            Active: static-plus
          logger: |+
            Debug: resource-manager,cache,policy
        ---
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: cri-resmgr-config.group.foo
          namespace: kube-system
        data:
          policy: |+
            ReservedResources:
              CPU: 1
            Active: static
        """);

    int exit = migrate("--configmaps", configMaps.toString());

    assertThat(exit).isEqualTo(1);
    List<JsonNode> documents = YAML.readerFor(JsonNode.class).<JsonNode>readValues(out.toString()).readAll();
    assertThat(documents).extracting(d -> d.at("/metadata/name").asText())
        .containsExactly("crigate-config.default", "crigate-config.group.foo");
    assertThat(YAML.readTree(documents.get(0).at("/data/policy").asText()))
        .isEqualTo(YAML.readTree("{active: static-plus, reservedCpus: 'quantity:1'}"));
    assertThat(err.toString()).contains("dropped ConfigMap cri-resmgr-config.default data.logger: crigate reads only the policy");
  }

  @Test
  void noInputIsABadInputError() {
    assertThat(migrate()).isEqualTo(2);
    assertThat(err.toString()).contains("give a command line after --, --config FILE or --configmaps FILE");
  }
}

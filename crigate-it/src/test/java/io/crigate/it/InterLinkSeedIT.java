package io.crigate.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.testsupport.InterLinkSeedExamples;
import io.crigate.testsupport.NodeSelectorCrudDispatcher;
import io.crigate.testsupport.SelfSignedTls;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * interLink's first README (seed 002, Cloud-PG/interLink) as its user would run it, with crigate in
 * place of interLink's three Go programs: its {@code InterLinkConfig.yaml} and environment variables
 * configure {@code crigate interlink-plugin} and {@code crigate interlink-api}, its {@code vk}
 * command line starts {@code crigate virtual-node}, and its {@code busyecho_k8s.yaml}, created as
 * written in namespace {@code vk} of fabric8's mock API server (no kube-apiserver runs here) and bound
 * to the node, runs as a job on the real Slurm.
 *
 * <p>The example was written for CINECA's Marconi100, so the test gives the shared Slurm what that
 * site had: the partition {@code m100_usr_prod} and the account {@code INF23_lhc_0} (created if
 * missing) and the user's script at the path the pod names. The script waits for a file this test removes, so the pod is seen Running
 * before it Succeeds, or is deleted while its job runs.
 */
class InterLinkSeedIT {

  /** The README's typical vk command line (line 131); only the kubeconfig's path is this machine's. */
  static final String VK_COMMAND_LINE = "--nodename vk-knoc-debug --provider knoc --provider-config "
      + "./kustomizations/knoc-cfg.json --startup-timeout 10s --klog.v 2 --kubeconfig KUBECONFIG --klog.logtostderr "
      + "--log-level debug";

  static final String NODE = "vk-knoc-debug";
  static final String NAMESPACE = "vk";
  static final String PARTITION = "m100_usr_prod";
  /** The account busyecho's {@code -A} names; Slurm keeps its job under root's default without it. */
  static final String ACCOUNT = "INF23_lhc_0";
  static final Path SCRIPT = Path.of("/m100/home/userexternal/gsurace0/script.sh");
  static final Path HOLD = Path.of("/m100/home/userexternal/gsurace0/hold");
  // this helper's port range
  static final int API_PORT = 28100;
  static final int PLUGIN_PORT = 28101;
  static final int KUBELET_PORT = 28102;
  static final Duration JOB_TIMEOUT = Duration.ofSeconds(120);

  private static Path work;
  private static KubernetesMockServer server;
  private static KubernetesClient client;
  private static final List<Process> processes = new ArrayList<>();
  private static HttpClient kubelet;
  private static boolean createdM100;

  @BeforeAll
  static void start() throws Exception {
    work = Files.createTempDirectory("crigate-interlink-seed-it");
    givePartitionAndScriptOfTheExamplesSite();
    server = new NodeSelectorCrudDispatcher().start();
    client = server.createClient();
    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> client.nodes().list() != null);

    Path config = Files.writeString(work.resolve("InterLinkConfig.yaml"), InterLinkSeedExamples.INTERLINK_CONFIG);
    Path token = Files.writeString(work.resolve("token"), "vk-token-for-the-oauth2-proxy");
    Path crigateConfig = Files.writeString(work.resolve("crigate.yaml"), """
        backends:
          - name: slurm
            type: slurm
            handlers: [slurm]
            workDir: %s
            transport: local
            runner: none
            pollIntervalMillis: 300
        """.formatted(System.getenv("CRIGATE_SLURM_WORKDIR")));
    Path volumes = Path.of(System.getenv("CRIGATE_SLURM_WORKDIR")).resolve("interlink-seed-" + work.getFileName());
    Files.createDirectories(work.resolve("kustomizations"));
    Files.writeString(work.resolve("kustomizations/knoc-cfg.json"), InterLinkSeedExamples.KNOC_CONFIG);
    Path kubeconfig = Files.writeString(work.resolve("kubeconfig-mycluster.yaml"), kubeconfig());
    SelfSignedTls.generate(work);

    // interLink's documented variables: where the file is, and ports of this machine's range
    Map<String, String> interLinkEnv = Map.of("INTERLINKCONFIGPATH", config.toString(),
        "INTERLINKPORT", Integer.toString(API_PORT), "SIDECARPORT", Integer.toString(PLUGIN_PORT), "VKTOKENFILE", token.toString());
    start("plugin", interLinkEnv, "interlink-plugin", "--config", crigateConfig.toString(),
        "--state-dir", work.resolve("plugin-state").toString(), "--volume-dir", volumes.toString());
    start("api", interLinkEnv, "interlink-api");
    Map<String, String> vkEnv = new java.util.HashMap<>(interLinkEnv);
    vkEnv.putAll(Map.of("KUBELET_PORT", Integer.toString(KUBELET_PORT), "VKUBELET_POD_IP", "127.0.0.1",
        "APISERVER_CERT_LOCATION", work.resolve("tls.crt").toString(), "APISERVER_KEY_LOCATION", work.resolve("tls.key").toString()));
    List<String> vk = new ArrayList<>(List.of("virtual-node"));
    for (String word : VK_COMMAND_LINE.split(" ")) {
      vk.add(word.equals("KUBECONFIG") ? kubeconfig.toString() : word);
    }
    start("vk", vkEnv, vk.toArray(String[]::new));
    kubelet = HttpClient.newBuilder().sslContext(SelfSignedTls.trusting(work.resolve("tls.crt"))).build();
    await("node " + NODE + " Ready").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
        .until(() -> {
          if (processes.stream().anyMatch(p -> !p.isAlive())) {
            throw new AssertionError("a crigate process exited; logs:\n" + logs());
          }
          Node node = client.nodes().withName(NODE).get();
          return node != null && node.getStatus() != null && node.getStatus().getConditions() != null
              && node.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True"));
        });
  }

  @AfterEach
  void deletePod() throws IOException {
    Files.deleteIfExists(HOLD);
    client.pods().inNamespace(NAMESPACE).withName("testvk").delete();
    await().atMost(JOB_TIMEOUT).until(() -> client.pods().inNamespace(NAMESPACE).withName("testvk").get() == null);
  }

  @AfterAll
  static void stop() throws Exception {
    for (Process process : processes) {
      process.destroy();
    }
    for (Process process : processes) {
      if (!process.waitFor(15, TimeUnit.SECONDS)) {
        process.destroyForcibly();
      }
    }
    if (client != null) {
      client.close();
      server.destroy();
    }
    if (createdM100) {
      deleteTree(Path.of("/m100"));
    }
    deleteTree(work);
  }

  @Test
  void eachFlagAndKeyWithoutMeaningHereIsWarnedOnceAndTheNodeIsTheVksNode() throws Exception {
    assertThat(Files.readString(work.resolve("vk.log"))).contains(
        "crigate virtual-node: warning: --startup-timeout 10s: crigate's node has no start-up deadline",
        "crigate virtual-node: warning: --klog.v 2: crigate's Kubernetes client logs at --log-level",
        "crigate virtual-node: warning: --klog.logtostderr: crigate always logs to standard error")
        .as("--log-level debug").contains(" DEBUG ");
    assertThat(Files.readString(work.resolve("plugin.log")))
        .contains("crigate interlink-plugin: warning: TsocksPath, TsocksConfig, TsocksLoginNode: unused, Tsocks is false")
        .as("SbatchPath and ScancelPath are the programs on PATH").doesNotContain("SbatchPath", "ScancelPath");
    assertThat(Files.readString(work.resolve("api.log"))).contains("crigate interlink-api: warning: VKTokenFile: ");
    Node node = client.nodes().withName(NODE).get();
    assertThat(node.getSpec().getTaints()).singleElement().satisfies(t -> {
      assertThat(t.getKey()).isEqualTo("virtual-kubelet.io/provider");
      assertThat(t.getValue()).isEqualTo("knoc");
    });
    assertThat(node.getStatus().getDaemonEndpoints().getKubeletEndpoint().getPort()).isEqualTo(KUBELET_PORT);
  }

  @Test
  void theReadmesCommandLineAndConfigRunBusyechoToSuccessWithItsLogs() throws Exception {
    Node node = client.nodes().withName(NODE).get();
    assertThat(node.getStatus().getCapacity()).as("knoc-cfg.json").containsKeys("cpu", "memory", "pods");
    assertThat(node.getStatus().getCapacity().get("memory").toString()).isEqualTo("32Gi");
    assertThat(node.getStatus().getCapacity().get("pods").toString()).isEqualTo("128");
    Files.writeString(HOLD, "");

    Pod pod = createBusyecho();
    assertSchedulableOn(node, pod);

    await("busyecho Running").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(300)).until(() -> phase().equals("Running"));
    await().atMost(JOB_TIMEOUT).until(() -> logs("busyecho").contains("busyecho started"));
    long job = jobOfTheExample();
    // the annotation's flags reached sbatch, as Slurm records them (it keeps account names in lower case)
    String record = scontrol(job);
    assertThat(record).contains("Partition=" + PARTITION, "TimeLimit=1-00:00:00", "NumCPUs=1", "Account=" + ACCOUNT.toLowerCase())
        .contains("JobName=crigate-");
    Files.delete(HOLD);

    await("busyecho Succeeded").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(300)).until(() -> phase().equals("Succeeded"));
    var status = current().getStatus().getContainerStatuses().getFirst();
    assertThat(status.getName()).isEqualTo("busyecho");
    assertThat(status.getState().getTerminated().getExitCode()).isZero();
    assertThat(logs("busyecho")).isEqualTo("busyecho started\nbusyecho done\n");
    await().atMost(Duration.ofSeconds(30)).until(() -> sacctState(job).equals("COMPLETED"));
  }

  @Test
  void deletingBusyechoCancelsItsJob() throws Exception {
    Files.writeString(HOLD, "");
    createBusyecho();
    await("busyecho Running").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(300)).until(() -> phase().equals("Running"));
    await().atMost(JOB_TIMEOUT).until(() -> logs("busyecho").contains("busyecho started"));
    long job = jobOfTheExample();
    // slurmdbd learns of the start after slurmctld does, so the accounting record may still say PENDING
    await("job " + job + " RUNNING in sacct").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(300))
        .until(() -> sacctState(job).equals("RUNNING"));

    client.pods().inNamespace(NAMESPACE).withName("testvk").delete();

    // the pod's grace period starts with SIGTERM to the job, which ends it (FAILED, signal 15) or is
    // cancelled at the grace period's end; the hold file is still there, so the script never ends itself
    await("job " + job + " ended by the deletion").atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(500))
        .until(() -> List.of("CANCELLED", "FAILED").contains(sacctState(job)));
    assertThat(Files.exists(HOLD)).as("the script was still waiting").isTrue();
  }

  private static Pod createBusyecho() {
    Pod pod = client.pods().inNamespace(NAMESPACE).load(new ByteArrayInputStream(InterLinkSeedExamples.BUSYECHO.getBytes(StandardCharsets.UTF_8))).item();
    // what the scheduler's binding adds; no scheduler runs against the mock API server
    pod.getSpec().setNodeName(NODE);
    return client.pods().inNamespace(NAMESPACE).resource(pod).create();
  }

  /** The scheduler's two checks that matter here: the nodeSelector matches, every NoSchedule taint is tolerated. */
  private static void assertSchedulableOn(Node node, Pod pod) {
    assertThat(node.getMetadata().getLabels()).containsAllEntriesOf(pod.getSpec().getNodeSelector());
    for (Taint taint : node.getSpec().getTaints()) {
      assertThat(pod.getSpec().getTolerations()).as("taint %s", taint).anyMatch(t -> tolerates(t, taint));
    }
  }

  private static boolean tolerates(Toleration toleration, Taint taint) {
    boolean effect = toleration.getEffect() == null || toleration.getEffect().isEmpty()
        || toleration.getEffect().equals(taint.getEffect());
    boolean key = toleration.getKey().equals(taint.getKey());
    return effect && key && ("Exists".equals(toleration.getOperator()) || taint.getValue().equals(toleration.getValue()));
  }

  private static Pod current() {
    return client.pods().inNamespace(NAMESPACE).withName("testvk").get();
  }

  private static String phase() {
    Pod pod = current();
    return pod == null || pod.getStatus() == null || pod.getStatus().getPhase() == null ? "" : pod.getStatus().getPhase();
  }

  /** kubectl logs' path: the kubelet API the virtual node serves on KUBELET_PORT with the APISERVER_* pair. */
  private static String logs(String container) throws Exception {
    HttpResponse<String> response = kubelet.send(HttpRequest.newBuilder(URI.create(
        "https://127.0.0.1:%d/containerLogs/%s/testvk/%s".formatted(KUBELET_PORT, NAMESPACE, container))).build(),
        HttpResponse.BodyHandlers.ofString());
    return response.statusCode() == 200 ? response.body() : "";
  }

  /** The one job in the example's partition that is not yet over. */
  private static long jobOfTheExample() throws Exception {
    String out = run("squeue", "--noheader", "--partition=" + PARTITION, "--states=RUNNING", "--format=%i");
    assertThat(out.lines().toList()).as("running jobs in %s", PARTITION).hasSize(1);
    return Long.parseLong(out.strip());
  }

  private static String scontrol(long job) throws Exception {
    return run("scontrol", "show", "job", Long.toString(job));
  }

  private static String sacctState(long job) throws Exception {
    return run("sacct", "--noheader", "--allocations", "--parsable2", "--format=State", "--jobs=" + job).strip()
        .replaceFirst(" by .*", "");
  }

  /** Marconi100's partition and the user's script, where the example expects them. */
  private static void givePartitionAndScriptOfTheExamplesSite() throws Exception {
    if (!run("scontrol", "--oneliner", "show", "partition").contains("PartitionName=" + PARTITION + " ")) {
      run("scontrol", "create", "PartitionName=" + PARTITION, "Nodes=ALL", "State=UP", "MaxTime=INFINITE");
    }
    if (!run("sacctmgr", "--noheader", "--parsable2", "show", "assoc", "format=account,user").contains(ACCOUNT.toLowerCase() + "|root")) {
      run("sacctmgr", "-i", "add", "account", ACCOUNT);
      run("sacctmgr", "-i", "add", "user", "root", "account=" + ACCOUNT);
    }
    createdM100 = !Files.exists(Path.of("/m100"));
    Files.createDirectories(SCRIPT.getParent());
    Files.writeString(SCRIPT, """
        #!/bin/sh
        echo busyecho started
        while [ -e %s ]; do sleep 0.2; done
        echo busyecho done
        """.formatted(HOLD));
    Files.setPosixFilePermissions(SCRIPT, PosixFilePermissions.fromString("rwxr-xr-x"));
  }

  private static String run(String... command) throws Exception {
    Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor()).as("%s: %s", String.join(" ", command), out).isZero();
    return out;
  }

  private static void start(String name, Map<String, String> env, String... args) throws IOException {
    List<String> command = new ArrayList<>(List.of(Infra.repositoryRoot().resolve("bin/crigate").toString()));
    command.addAll(List.of(args));
    ProcessBuilder builder = new ProcessBuilder(command).directory(work.toFile()).redirectErrorStream(true)
        .redirectOutput(work.resolve(name + ".log").toFile());
    builder.environment().putAll(env);
    processes.add(builder.start());
  }

  private static String logs() {
    StringBuilder all = new StringBuilder();
    for (String name : List.of("plugin", "api", "vk")) {
      try {
        all.append("--- ").append(name).append('\n').append(Files.readString(work.resolve(name + ".log")));
      } catch (IOException e) {
        all.append("(no log: ").append(e.getMessage()).append(")\n");
      }
    }
    return all.toString();
  }

  private static String kubeconfig() {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: mock
          cluster:
            server: %s
            insecure-skip-tls-verify: true
        contexts:
        - name: mock
          context: {cluster: mock, user: mock, namespace: vk}
        current-context: mock
        users:
        - name: mock
          user: {token: mock}
        """.formatted(client.getMasterUrl());
  }

  private static void deleteTree(Path root) {
    if (root == null || !Files.exists(root)) {
      return;
    }
    try (var files = Files.walk(root)) {
      files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}

package io.crigate.interlink.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.interlink.MemoryStore;
import io.crigate.interlink.SlurmSite;
import io.crigate.interlink.TestPods;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.api.ApiRoutes;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.plugin.CrigatePlugin;
import io.crigate.interlink.plugin.PluginSettings;
import io.crigate.spi.Backend;
import io.crigate.testsupport.MockApiShutdown;
import io.crigate.testsupport.NodeSelectorCrudDispatcher;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * End to end: a Pod object bound to the virtual node in the mock API server (CRUD mode) runs as a
 * job on the shared real Slurm, through the interLink API layer and crigate's plugin in one process.
 */
class VirtualNodeSlurmIT {

  private static final String NODE = "vnode-slurm";
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

  private KubernetesMockServer server;
  private KubernetesClient client;

  @TempDir Path tmp;
  private Backend backend;
  private CrigatePlugin plugin;
  private RunningServer api;
  private ApiClient apiClient;
  private VirtualNode node;
  private final List<String> pods = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    server = new NodeSelectorCrudDispatcher().start();
    client = server.createClient();
    // the mock API server's first answers pay for its class loading: on a loaded machine that can
    // exceed the client's connect timeout, which is not what these tests are about
    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> client.nodes().list() != null);
    backend = SlurmSite.backend(tmp.resolve("backend"));
    Path shared = Path.of(SlurmSite.env("CRIGATE_SLURM_WORKDIR")).resolve("interlink-vn-" + tmp.getFileName());
    plugin = new CrigatePlugin(backend, new MemoryStore(),
        PluginSettings.under(tmp).withVolumeDir(shared).withPollInterval(Duration.ofMillis(300)), Clock.systemUTC());
    api = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> ApiRoutes.install(config, plugin));
    apiClient = new ApiClient(api.address(), null);
    node = new VirtualNode(client, apiClient, NodeSettings.defaults(NODE)
        .withIntervals(Duration.ofMillis(500), Duration.ofSeconds(2)), Clock.systemUTC())
        .start(HttpEndpoint.plain("127.0.0.1:0"));
  }

  @AfterEach
  void stop() throws Exception {
    for (String name : pods) {
      client.pods().inNamespace("it").withName(name).delete();
    }
    await().atMost(Duration.ofSeconds(30)).until(() ->
        backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersCount() == 0);
    MockApiShutdown.stopServerThenClose(server, node, apiClient, api, plugin, backend, client);
  }

  private Pod run(String prefix, String script) {
    Pod pod = new PodBuilder(TestPods.shell(prefix, script)).editSpec().withNodeName(NODE).endSpec().build();
    pods.add(pod.getMetadata().getName());
    return client.pods().inNamespace("it").resource(pod).create();
  }

  private Pod current(Pod pod) {
    return client.pods().inNamespace("it").withName(pod.getMetadata().getName()).get();
  }

  private String phase(Pod pod) {
    Pod now = current(pod);
    return now == null || now.getStatus() == null || now.getStatus().getPhase() == null ? "" : now.getStatus().getPhase();
  }

  @Test
  void aPodThatExitsZeroSucceedsAndItsLogsComeBackThroughTheKubeletPath() throws Exception {
    Pod pod = run("vn-ok", "echo hello-from-the-virtual-node");

    await().atMost(JOB_TIMEOUT).until(() -> phase(pod).equals("Succeeded"));
    var status = current(pod).getStatus().getContainerStatuses().getFirst();
    assertThat(status.getState().getTerminated().getExitCode()).isZero();
    assertThat(status.getState().getTerminated().getFinishedAt()).isNotBlank();
    await().atMost(Duration.ofSeconds(10)).until(() -> logs(pod).contains("hello-from-the-virtual-node"));
  }

  @Test
  void aPodThatExitsThreeFailsWithCodeThree() {
    Pod pod = run("vn-three", "exit 3");

    await().atMost(JOB_TIMEOUT).until(() -> phase(pod).equals("Failed"));
    assertThat(current(pod).getStatus().getContainerStatuses().getFirst().getState().getTerminated().getExitCode())
        .isEqualTo(3);
  }

  @Test
  void deletingThePodCancelsItsJob() throws Exception {
    Pod pod = run("vn-delete", "echo started; sleep 300");
    await().atMost(JOB_TIMEOUT).until(() -> phase(pod).equals("Running"));
    // Slurm reports a job running before its batch script starts; a TERM sent in that gap reaches no
    // process, and the job would then end only at the grace period's KILL, as long as this wait.
    await().atMost(JOB_TIMEOUT).until(() -> logs(pod).contains("started"));
    String containerId = backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList().stream()
        .filter(c -> pod.getMetadata().getUid().equals(c.getLabelsMap().get("io.kubernetes.pod.uid")))
        .findFirst().orElseThrow().getId();

    client.pods().inNamespace("it").withName(pod.getMetadata().getName()).delete();

    // The pod's grace period starts with SIGTERM to the job: a job that dies of it ends FAILED (signal
    // 15), one still there at the grace period's end is cancelled; "" once squeue has forgotten it.
    await().atMost(Duration.ofSeconds(30)).until(() -> List.of("FAILED", "CANCELLED", "").contains(
        SlurmSite.jobState("crigate-" + containerId)));
  }

  @Test
  void aJobReadsItsServiceAccountTokenAndDownwardApiFilesSentThroughTheWholeChain() throws Exception {
    server.expect().post().withPath("/api/v1/namespaces/it/serviceaccounts/default/token").andReply(201, request ->
        new TokenRequestBuilder().withNewStatus().withToken("eyJ-end-to-end")
            .withExpirationTimestamp(Instant.now().plus(Duration.ofHours(1)).toString()).endStatus().build()).always();
    Pod base = TestPods.shell("vn-token", "");
    // the API server gives the pod its uid, and this test's volume directory holds this one pod alone
    String dir = Path.of(SlurmSite.env("CRIGATE_SLURM_WORKDIR")).resolve("interlink-vn-" + tmp.getFileName()) + "/*";
    // runner "none" runs on the node without a container, so the job reads the volumes' host directories
    Pod pod = new PodBuilder(base).editMetadata().addToLabels("tier", "batch").endMetadata().editSpec().withNodeName(NODE)
        .addNewVolume().withName("kube-api-access").withNewProjected()
        .addNewSource().withNewServiceAccountToken().withPath("token").withExpirationSeconds(3600L).endServiceAccountToken()
        .endSource()
        .addNewSource().withNewDownwardAPI().addNewItem().withPath("namespace").withNewFieldRef()
        .withFieldPath("metadata.namespace").endFieldRef().endItem().endDownwardAPI().endSource()
        .endProjected().endVolume()
        .addNewVolume().withName("podinfo").withNewDownwardAPI().addNewItem().withPath("labels").withNewFieldRef()
        .withFieldPath("metadata.labels").endFieldRef().endItem().endDownwardAPI().endVolume()
        .editFirstContainer().withCommand("/bin/sh", "-c", "cat %1$s/kube-api-access/token; echo; cat %1$s/kube-api-access/namespace;"
            .formatted(dir) + " echo; cat %s/podinfo/labels".formatted(dir))
        .addNewVolumeMount().withName("kube-api-access").withMountPath("/var/run/secrets/kubernetes.io/serviceaccount")
        .endVolumeMount().addNewVolumeMount().withName("podinfo").withMountPath("/etc/podinfo").endVolumeMount().endContainer()
        .endSpec().build();
    pods.add(pod.getMetadata().getName());
    client.pods().inNamespace("it").resource(pod).create();

    await().atMost(JOB_TIMEOUT).until(() -> List.of("Succeeded", "Failed").contains(phase(pod)));
    assertThat(phase(pod)).as("status %s, job output: %s", current(pod).getStatus(), logs(pod)).isEqualTo("Succeeded");
    await().atMost(Duration.ofSeconds(10)).until(() -> logs(pod).contains("tier="));
    assertThat(logs(pod)).isEqualTo("eyJ-end-to-end\nit\ntier=\"batch\"\n");
  }

  private String logs(Pod pod) throws Exception {
    HttpResponse<String> response = new WireClient(node.kubeletAddress())
        .call("GET", "/containerLogs/it/%s/main".formatted(pod.getMetadata().getName()), null);
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }
}

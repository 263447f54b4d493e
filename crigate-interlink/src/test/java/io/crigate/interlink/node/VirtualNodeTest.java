package io.crigate.interlink.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.interlink.RecordingPlugin;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.api.ApiRoutes;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The virtual node against fabric8's mock API server in CRUD mode and crigate's interLink API layer
 * over HTTP, with the plugin behind it recorded (its Slurm behaviour is VirtualNodeSlurmIT's).
 */
@EnableKubernetesMockClient(crud = true)
class VirtualNodeTest {

  private static final String NODE = "vnode-test";

  KubernetesClient client;

  private final RecordingPlugin plugin = new RecordingPlugin();
  private RunningServer api;
  private ApiClient apiClient;
  private VirtualNode node;

  @BeforeEach
  void start() {
    // the mock API server's first answers pay for its class loading: on a loaded machine that can
    // exceed the client's connect timeout, which is not what these tests are about
    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> client.nodes().list() != null);
    api = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> ApiRoutes.install(config, plugin));
    apiClient = new ApiClient(api.address(), null);
    node = startNode();
  }

  private VirtualNode startNode() {
    NodeSettings settings = NodeSettings.defaults(NODE).withIntervals(Duration.ofMillis(200), Duration.ofMillis(500));
    return new VirtualNode(client, apiClient, settings, Clock.systemUTC()).start(HttpEndpoint.plain("127.0.0.1:0"));
  }

  @AfterEach
  void stop() {
    if (node != null) {
      node.close();
    }
    apiClient.close();
    api.close();
  }

  @Test
  void registersTheNodeWithTaintsCapacityFromThePingReadyAndALease() {
    var registered = client.nodes().withName(NODE).get();

    assertThat(registered.getSpec().getTaints()).extracting(t -> t.getKey())
        .contains(NodeSettings.VIRTUAL_NODE_TAINT.key(), "virtual-node.interlink/no-schedule");
    assertThat(registered.getStatus().getCapacity().get("cpu").toString()).isEqualTo("8");
    assertThat(registered.getStatus().getConditions()).filteredOn(c -> c.getType().equals("Ready"))
        .singleElement().satisfies(c -> assertThat(c.getStatus()).isEqualTo("True"));
    var lease = client.leases().inNamespace("kube-node-lease").withName(NODE).get();
    assertThat(lease.getSpec().getHolderIdentity()).isEqualTo(NODE);
    var firstRenew = lease.getSpec().getRenewTime();
    await().atMost(Duration.ofSeconds(30)).until(() ->
        !client.leases().inNamespace("kube-node-lease").withName(NODE).get().getSpec().getRenewTime().equals(firstRenew));
  }

  @Test
  void aBoundPodIsCreatedOnceItsStatusPatchedAndResumedAfterARestart() {
    Pod pod = client.pods().inNamespace("default").resource(pod("vn-exit3")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> phase(pod).equals("Failed"));
    Pod seen = client.pods().inNamespace("default").withName("vn-exit3").get();
    assertThat(seen.getMetadata().getAnnotations()).containsKey(PodSync.JOB_ANNOTATION);
    assertThat(seen.getStatus().getContainerStatuses().getFirst().getState().getTerminated().getExitCode()).isEqualTo(3);
    assertThat(seen.getStatus().getReason()).isEqualTo("Error");
    assertThat(plugin.created).hasSize(1);

    node.close();
    node = startNode();
    // events are handled in order on one thread, and the restarted informer lists vn-exit3 first:
    // once the pod created after the restart has been created, vn-exit3 has been seen again
    client.pods().inNamespace("default").resource(pod("vn-after-restart")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() >= 2);
    assertThat(plugin.created).extracting(d -> d.pod().getMetadata().getName())
        .containsExactly("vn-exit3", "vn-after-restart");
  }

  @Test
  void aPodOnAnotherNodeIsLeftAlone() {
    client.pods().inNamespace("default").resource(new PodBuilder(pod("vn-elsewhere")).editSpec().withNodeName("real-node")
        .endSpec().build()).create();
    client.pods().inNamespace("default").resource(pod("vn-mine")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    assertThat(plugin.created.getFirst().pod().getMetadata().getName()).isEqualTo("vn-mine");
  }

  @Test
  void deletingThePodDeletesItThroughTheApi() {
    client.pods().inNamespace("default").resource(pod("vn-delete")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    await().atMost(Duration.ofSeconds(30)).until(() -> PodSync.created(client.pods().inNamespace("default")
        .withName("vn-delete").get()));

    client.pods().inNamespace("default").withName("vn-delete").delete();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.deleted.size() == 1);
    assertThat(plugin.deleted.getFirst().getMetadata().getName()).isEqualTo("vn-delete");
  }

  @Test
  void aProjectedServiceAccountVolumeReachesThePluginAsFiles() {
    client.configMaps().inNamespace("default").resource(new io.fabric8.kubernetes.api.model.ConfigMapBuilder()
        .withNewMetadata().withName("kube-root-ca.crt").endMetadata().addToData("ca.crt", "PEM").build()).create();
    Pod pod = new PodBuilder(pod("vn-projected")).editSpec()
        .addNewVolume().withName("kube-api-access").withNewProjected()
        .addNewSource().withNewConfigMap().withName("kube-root-ca.crt").endConfigMap().endSource()
        .addNewSource().withNewDownwardAPI().addNewItem().withPath("namespace").withNewFieldRef()
        .withFieldPath("metadata.namespace").endFieldRef().endItem().endDownwardAPI().endSource()
        .endProjected().endVolume()
        .editFirstContainer().addNewVolumeMount().withName("kube-api-access")
        .withMountPath("/var/run/secrets/kubernetes.io/serviceaccount").endVolumeMount().endContainer()
        .endSpec().build();

    client.pods().inNamespace("default").resource(pod).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    var projected = plugin.created.getFirst().containersOrEmpty().getFirst().projectedvolumemaps();
    assertThat(projected).singleElement().satisfies(map -> {
      assertThat(map.getMetadata().getName()).isEqualTo("kube-api-access");
      assertThat(map.getData()).containsEntry("ca.crt", "PEM").containsEntry("namespace", "default");
    });
  }

  @Test
  void kubectlLogsReachesTheApiThroughTheKubeletPath() throws Exception {
    client.pods().inNamespace("default").resource(pod("vn-logs")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);

    HttpResponse<String> logs = new WireClient(node.kubeletAddress())
        .call("GET", "/containerLogs/default/vn-logs/main?tailLines=10&follow=false", null);
    HttpResponse<String> unknown = new WireClient(node.kubeletAddress())
        .call("GET", "/containerLogs/default/no-such-pod/main", null);

    assertThat(logs.statusCode()).as(logs.body()).isEqualTo(200);
    assertThat(logs.body()).isEqualTo("line-1\nline-2\n");
    assertThat(plugin.logsAsked.getFirst().optsOrDefault().tail()).isEqualTo(10);
    assertThat(unknown.statusCode()).isEqualTo(404);
  }

  private String phase(Pod pod) {
    Pod now = client.pods().inNamespace("default").withName(pod.getMetadata().getName()).get();
    return now.getStatus() == null || now.getStatus().getPhase() == null ? "" : now.getStatus().getPhase();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid(UUID.randomUUID().toString()).endMetadata()
        .withNewSpec().withNodeName(NODE).addNewContainer().withName("main").withImage("busybox").endContainer()
        .endSpec().build();
  }
}

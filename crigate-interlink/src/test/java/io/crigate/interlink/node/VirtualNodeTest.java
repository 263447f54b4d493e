package io.crigate.interlink.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.interlink.RecordingPlugin;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.api.ApiRoutes;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.interlink.wire.WireJson;
import io.crigate.testsupport.MockApiShutdown;
import io.crigate.testsupport.NodeSelectorCrudDispatcher;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import io.fabric8.kubernetes.api.model.authentication.TokenRequestBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.ConnectException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The virtual node against fabric8's mock API server in CRUD mode and crigate's interLink API layer
 * over HTTP, with the plugin behind it recorded (its Slurm behaviour is VirtualNodeSlurmIT's).
 */
class VirtualNodeTest {

  private static final String NODE = "vnode-test";

  private final NodeSelectorCrudDispatcher apiServer = new NodeSelectorCrudDispatcher();
  private KubernetesMockServer server;
  private KubernetesClient client;
  private final RecordingPlugin plugin = new RecordingPlugin();
  private RunningServer api;
  private ApiClient apiClient;
  private VirtualNode node;

  @BeforeEach
  void start() {
    server = apiServer.start();
    client = server.createClient();
    // the mock API server's first answers pay for its class loading: on a loaded machine that can
    // exceed the client's connect timeout, which is not what these tests are about
    await().atMost(Duration.ofSeconds(90)).ignoreExceptions().until(() -> client.nodes().list() != null);
    api = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> ApiRoutes.install(config, plugin));
    apiClient = new ApiClient(api.address(), null);
    node = startNode();
  }

  private VirtualNode startNode() {
    return startNode(PodApiAccess.NONE);
  }

  private VirtualNode startNode(PodApiAccess podApi) {
    NodeSettings settings = NodeSettings.defaults(NODE).withIntervals(Duration.ofMillis(200), Duration.ofMillis(500));
    return new VirtualNode(client, apiClient, settings, podApi, Clock.systemUTC()).start(HttpEndpoint.plain("127.0.0.1:0"));
  }

  @AfterEach
  void stop() throws Exception {
    MockApiShutdown.stopServerThenClose(server, node, apiClient, api, client);
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

  /** A relist while the API server is away is retried, logged as one line that names the cause. */
  @Test
  void aListFailingAfterTheStartIsRetriedWithOneLineNamingTheCause() {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger log = (Logger) LoggerFactory.getLogger(VirtualNode.class);
    log.addAppender(logs);
    try {
      var refused = new KubernetesClientException("Operation: [list] failed",
          new CompletionException(new ConnectException("Connection refused: /10.0.0.1:6443")));

      assertThat(node.retryAfterStart(true, refused)).isTrue();
      assertThat(node.retryAfterStart(false, refused)).isFalse(); // the start fails instead
      assertThat(node.retryAfterStart(true, new WatcherException("forbidden"))).isFalse();
      assertThat(logs.list).singleElement().satisfies(retry -> {
        assertThat(retry.getFormattedMessage()).isEqualTo("virtual node " + NODE + ": listing its pods failed "
            + "(java.net.ConnectException: Connection refused: /10.0.0.1:6443); retrying");
        assertThat(retry.getThrowableProxy()).isNull();
      });
    } finally {
      log.detachAppender(logs);
    }
  }

  @Test
  void aBoundPodIsCreatedOnceAndItsStatusPatched() {
    Pod pod = client.pods().inNamespace("default").resource(pod("vn-exit3")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> phase(pod).equals("Failed"));
    Pod seen = client.pods().inNamespace("default").withName("vn-exit3").get();
    assertThat(seen.getMetadata().getAnnotations()).containsKey(PodSync.JOB_ANNOTATION);
    assertThat(seen.getStatus().getContainerStatuses().getFirst().getState().getTerminated().getExitCode()).isEqualTo(3);
    assertThat(seen.getStatus().getReason()).isEqualTo("Error");
    assertThat(plugin.created).hasSize(1);
  }

  @Test
  void manyPodsAreEachCreatedOnceByTheWorkersAndAgainNeverAfterARestart() {
    List<String> names = IntStream.range(0, 12).mapToObj(i -> "vn-many-" + i).toList();
    plugin.running = true;
    names.forEach(name -> client.pods().inNamespace("default").resource(pod(name)).create());
    // each pod has several events in flight (add, the job annotation, status patches) on several workers
    await().atMost(Duration.ofSeconds(60)).until(() -> names.stream().allMatch(n -> phase(n).equals("Running")));
    assertThat(plugin.created).extracting(d -> d.pod().getMetadata().getName()).containsExactlyInAnyOrderElementsOf(names);

    node.close();
    node = startNode();
    // the pods still run, so only their job annotation keeps the restarted node from creating them
    // again; a pod's events run in order, so once its delete reached the plugin, the restarted
    // node's listing of it has been handled
    names.forEach(name -> client.pods().inNamespace("default").withName(name).delete());

    await().atMost(Duration.ofSeconds(60)).until(() -> plugin.deleted.size() == names.size());
    assertThat(plugin.created).extracting(d -> d.pod().getMetadata().getName()).containsExactlyInAnyOrderElementsOf(names);
    assertThat(plugin.deleted).extracting(p -> p.getMetadata().getName()).containsExactlyInAnyOrderElementsOf(names);
  }

  @Test
  void podsAreCreatedInParallelAndAPodDeletedDuringItsCreateIsDeletedAfterIt() {
    CountDownLatch slowCreate = new CountDownLatch(1);
    plugin.holdCreate.put("vn-slow", slowCreate);
    client.pods().inNamespace("default").resource(pod("vn-slow")).create();

    client.pods().inNamespace("default").resource(pod("vn-fast")).create();
    // vn-slow's create is still held by the plugin: another worker created vn-fast meanwhile
    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.calls.contains("create vn-fast"));
    assertThat(plugin.calls).doesNotContain("create vn-slow");

    client.pods().inNamespace("default").withName("vn-slow").delete();
    slowCreate.countDown();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.calls.contains("delete vn-slow"));
    assertThat(plugin.calls).filteredOn(c -> c.endsWith(" vn-slow")).containsExactly("create vn-slow", "delete vn-slow");
  }

  @Test
  void theWatchAndListAskTheApiServerForThisNodesPodsOnly() {
    await().atMost(Duration.ofSeconds(30)).until(() -> podQueries().stream().anyMatch(q -> q.contains("watch=true")));

    assertThat(podQueries()).isNotEmpty().allSatisfy(query ->
        assertThat(query).contains("fieldSelector=spec.nodeName=" + NODE));
    assertThat(podQueries()).anyMatch(q -> !q.contains("watch=true"));
  }

  /** The pod collection queries (list and watch, all namespaces) the API server received. */
  private List<String> podQueries() {
    return apiServer.gets().stream().filter(p -> p.startsWith("/api/v1/pods?")).toList();
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
  void aDeleteThatFailedAfterThePodLeftTheApiServerIsRetried() {
    client.pods().inNamespace("default").resource(pod("vn-retry")).create();
    await().atMost(Duration.ofSeconds(30)).until(() -> PodSync.created(client.pods().inNamespace("default")
        .withName("vn-retry").get()));
    plugin.failDelete = true;

    // gone at once (as with a zero grace period): no later event of this pod will come
    client.pods().inNamespace("default").withName("vn-retry").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.calls.contains("delete failed vn-retry"));
    plugin.failDelete = false;

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.calls.contains("delete vn-retry"));
    assertThat(plugin.deleted).extracting(p -> p.getMetadata().getName()).containsExactly("vn-retry");
  }

  private Pod projectedPod(String name) {
    client.configMaps().inNamespace("default").resource(new ConfigMapBuilder().withNewMetadata().withName("kube-root-ca.crt")
        .endMetadata().addToData("ca.crt", "PEM").addToData("unused", "x").build()).create();
    client.secrets().inNamespace("default").resource(new SecretBuilder().withNewMetadata().withName("db").endMetadata()
        .addToData("password", Base64.getEncoder().encodeToString("hunter2".getBytes(StandardCharsets.UTF_8))).build()).create();
    return new PodBuilder(pod(name)).editMetadata().addToLabels("app", "demo").endMetadata().editSpec()
        .withServiceAccountName("robot")
        .addNewVolume().withName("kube-api-access").withNewProjected().withDefaultMode(0644)
        .addNewSource().withNewServiceAccountToken().withPath("token").withExpirationSeconds(600L)
        .withAudience("vault").endServiceAccountToken().endSource()
        .addNewSource().withNewConfigMap().withName("kube-root-ca.crt").addNewItem().withKey("ca.crt").withPath("ca.crt")
        .endItem().endConfigMap().endSource()
        .addNewSource().withNewSecret().withName("db").addNewItem().withKey("password").withPath("db/password")
        .withMode(0600).endItem().endSecret().endSource()
        .addNewSource().withNewDownwardAPI()
        .addNewItem().withPath("namespace").withNewFieldRef().withFieldPath("metadata.namespace").endFieldRef().endItem()
        .addNewItem().withPath("labels").withNewFieldRef().withFieldPath("metadata.labels").endFieldRef().endItem()
        .addNewItem().withPath("mem").withNewResourceFieldRef().withContainerName("main").withResource("limits.memory")
        .withDivisor(new Quantity("1Mi")).endResourceFieldRef().endItem()
        .endDownwardAPI().endSource()
        .endProjected().endVolume()
        .addNewVolume().withName("podinfo").withNewDownwardAPI().addNewItem().withPath("name").withNewFieldRef()
        .withFieldPath("metadata.name").endFieldRef().endItem().endDownwardAPI().endVolume()
        .editFirstContainer().withNewResources().addToLimits("memory", new Quantity("64Mi")).endResources()
        .addNewVolumeMount().withName("kube-api-access").withMountPath("/var/run/secrets/kubernetes.io/serviceaccount")
        .endVolumeMount().addNewVolumeMount().withName("podinfo").withMountPath("/etc/podinfo").endVolumeMount().endContainer()
        .endSpec().build();
  }

  private static Map<String, String> files(RetrievedPodData data, String volume) {
    return data.containersOrEmpty().getFirst().projectedvolumemaps().stream()
        .filter(m -> m.getMetadata().getName().equals(volume)).findFirst().orElseThrow().getData();
  }

  @Test
  void projectedVolumesReachThePluginAsFilesWithAPodBoundTokenThatIsRefreshedAndNeverLogged() throws Exception {
    ListAppender<ILoggingEvent> logs = captureLogs();
    List<String> tokenRequests = serveTokens(Duration.ofSeconds(5));
    plugin.running = true;

    client.pods().inNamespace("default").resource(projectedPod("vn-projected")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    RetrievedPodData first = plugin.created.getFirst();
    assertThat(files(first, "kube-api-access")).containsExactlyInAnyOrderEntriesOf(Map.of(
        "token", "secret-token-1", "ca.crt", "PEM", "db/password", "hunter2", "namespace", "default",
        "labels", "app=\"demo\"\n", "mem", "64"));
    // a downwardAPI volume is sent as interLink's VK sends it: a projected volume with its files
    assertThat(first.pod().getSpec().getVolumes()).filteredOn(v -> v.getName().equals("podinfo")).singleElement()
        .satisfies(v -> assertThat(v.getProjected().getSources().getFirst().getDownwardAPI()).isNotNull());
    assertThat(files(first, "podinfo")).containsExactly(Map.entry("name", "vn-projected"));
    JsonNode asked = WireJson.mapper().readTree(tokenRequests.getFirst());
    assertThat(asked.at("/spec/expirationSeconds").asLong()).isEqualTo(600);
    assertThat(asked.at("/spec/audiences/0").asText()).isEqualTo("vault");
    assertThat(asked.at("/spec/boundObjectRef/kind").asText()).isEqualTo("Pod");
    assertThat(asked.at("/spec/boundObjectRef/uid").asText()).isEqualTo(first.pod().getMetadata().getUid());

    // refreshed at 80% of the 5 s lifetime, through /create marked as a refresh
    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() >= 2);
    RetrievedPodData refresh = plugin.created.get(1);
    assertThat(refresh.isVolumeRefresh()).isTrue();
    assertThat(refresh.pod().getMetadata().getUid()).isEqualTo(first.pod().getMetadata().getUid());
    assertThat(files(refresh, "kube-api-access")).containsEntry("token", "secret-token-2");

    client.pods().inNamespace("default").withName("vn-projected").delete();
    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.deleted.size() == 1);
    int sent = plugin.created.size();
    // two more lifetimes: a refresh still scheduled would have fired by now
    Thread.sleep(Duration.ofSeconds(10));
    assertThat(plugin.created).as("nothing is sent for a deleted pod").hasSize(sent);

    assertThat(logs.list).as("log lines were captured").isNotEmpty();
    assertThat(logs.list).allSatisfy(event -> {
      assertThat(event.getFormattedMessage()).doesNotContain("secret-token");
      if (event.getThrowableProxy() != null) {
        assertThat(event.getThrowableProxy().getMessage()).doesNotContain("secret-token");
      }
    });
  }

  /**
   * Where offloaded pods reach the API server (interLink's KubernetesApiAddr, KubernetesApiPort and
   * KubernetesApiCaCrt): the kubelet's service variables in each container, a variable the pod sets
   * itself kept, and the given CA in place of the cluster's kube-root-ca.crt.
   */
  @Test
  void podsAreToldTheApiServerAndCaTheyReachFromWhereTheyRun() throws Exception {
    node.close();
    node = startNode(new PodApiAccess("api.example.org", 6443, "REMOTE-CA"));
    serveTokens(Duration.ofMinutes(10));
    plugin.running = true;
    Pod pod = new PodBuilder(projectedPod("vn-api")).editSpec().editFirstContainer()
        .addNewEnv().withName("KUBERNETES_SERVICE_PORT").withValue("8443").endEnv().endContainer().endSpec().build();

    client.pods().inNamespace("default").resource(pod).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    RetrievedPodData sent = plugin.created.getFirst();
    Map<String, String> env = new java.util.HashMap<>();
    sent.pod().getSpec().getContainers().getFirst().getEnv().forEach(e -> env.put(e.getName(), e.getValue()));
    assertThat(env).containsEntry("KUBERNETES_SERVICE_HOST", "api.example.org")
        .containsEntry("KUBERNETES_SERVICE_PORT", "8443") // the pod's own
        .containsEntry("KUBERNETES_SERVICE_PORT_HTTPS", "6443")
        .containsEntry("KUBERNETES_PORT", "tcp://api.example.org:6443")
        .containsEntry("KUBERNETES_PORT_443_TCP_ADDR", "api.example.org");
    assertThat(files(sent, "kube-api-access")).containsEntry("ca.crt", "REMOTE-CA");
  }

  /** A Secret key that is not UTF-8 text reaches the plugin byte for byte, in the volume's binaryData. */
  @Test
  void aBinarySecretKeyIsSentAsBinaryDataNotAlteredText() {
    byte[] keystore = {(byte) 0xfe, (byte) 0xed, 0x00, (byte) 0x80};
    client.secrets().inNamespace("default").resource(new SecretBuilder().withNewMetadata().withName("tls").endMetadata()
        .addToData("keystore.jks", Base64.getEncoder().encodeToString(keystore))
        .addToData("alias", Base64.getEncoder().encodeToString("web".getBytes(StandardCharsets.UTF_8))).build()).create();
    plugin.running = true;
    Pod pod = new PodBuilder(pod("vn-binary")).editSpec().addNewVolume().withName("tls").withNewProjected()
        .addNewSource().withNewSecret().withName("tls").endSecret().endSource().endProjected().endVolume()
        .editFirstContainer().addNewVolumeMount().withName("tls").withMountPath("/etc/tls").endVolumeMount().endContainer()
        .endSpec().build();

    client.pods().inNamespace("default").resource(pod).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    ConfigMap sent = plugin.created.getFirst().containersOrEmpty().getFirst().projectedvolumemaps().stream()
        .filter(m -> m.getMetadata().getName().equals("tls")).findFirst().orElseThrow();
    assertThat(sent.getData()).containsExactly(Map.entry("alias", "web"));
    assertThat(sent.getBinaryData()).containsOnlyKeys("keystore.jks");
    assertThat(Base64.getDecoder().decode(sent.getBinaryData().get("keystore.jks"))).isEqualTo(keystore);
  }

  @Test
  void aPluginThatCannotTakeVolumesAgainGetsATokenAsLongLivedAsInterLinksAndNoRefresh() throws Exception {
    plugin.volumeRefresh = false;
    plugin.running = true;
    node.close();
    node = startNode();
    List<String> tokenRequests = serveTokens(Duration.ofSeconds(3));

    client.pods().inNamespace("default").resource(projectedPod("vn-no-refresh")).create();

    await().atMost(Duration.ofSeconds(30)).until(() -> plugin.created.size() == 1);
    assertThat(WireJson.mapper().readTree(tokenRequests.getFirst()).at("/spec/expirationSeconds").asLong())
        .isEqualTo(ServiceAccountTokens.WITHOUT_REFRESH_SECONDS);
    Thread.sleep(Duration.ofSeconds(6));
    assertThat(plugin.created).as("a plugin that would create the pod again is never sent it again").hasSize(1);
  }

  private static ListAppender<ILoggingEvent> captureLogs() {
    Logger crigate = (Logger) LoggerFactory.getLogger("io.crigate");
    crigate.setLevel(Level.DEBUG);
    ListAppender<ILoggingEvent> appender = new ListAppender<>();
    appender.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(appender);
    return appender;
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

  /** Answers the TokenRequest subresource (CRUD mode does not serve it): token-N, living {@code lifetime}. */
  private List<String> serveTokens(Duration lifetime) {
    List<String> asked = new CopyOnWriteArrayList<>();
    server.expect().post().withPath("/api/v1/namespaces/default/serviceaccounts/robot/token").andReply(201, request -> {
      asked.add(request.getUtf8Body());
      return new TokenRequestBuilder().withNewStatus().withToken("secret-token-" + asked.size())
          .withExpirationTimestamp(Instant.now().plus(lifetime).toString()).endStatus().build();
    }).always();
    return asked;
  }

  private String phase(Pod pod) {
    return phase(pod.getMetadata().getName());
  }

  private String phase(String name) {
    Pod now = client.pods().inNamespace("default").withName(name).get();
    return now.getStatus() == null || now.getStatus().getPhase() == null ? "" : now.getStatus().getPhase();
  }

  private static Pod pod(String name) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("default")
        .withUid(UUID.randomUUID().toString()).endMetadata()
        .withNewSpec().withNodeName(NODE).addNewContainer().withName("main").withImage("busybox").endContainer()
        .endSpec().build();
  }
}

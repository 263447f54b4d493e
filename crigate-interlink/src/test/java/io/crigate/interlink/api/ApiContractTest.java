package io.crigate.interlink.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.interlink.RecordingPlugin;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.plugin.PluginRoutes;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.interlink.wire.WireJson;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The interLink API (interlink-api-openapi.json) as the virtual kubelet calls it
 * (specs/interlink-wire.md hop 1), forwarding over HTTP to a plugin server: the whole chain VK ->
 * API -> plugin, with the plugin's side recorded.
 */
class ApiContractTest {

  private static final String UID = "0d6a2a5e-0000-4000-8000-000000000002";
  private static final String POD = """
      {"metadata": {"name": "il-api-1", "namespace": "default", "uid": "%s"},
       "spec": {"initContainers": [{"name": "init", "image": "busybox"}],
                "containers": [{"name": "main", "image": "busybox",
                                "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}, {"name": "tok", "mountPath": "/tok"},
                                                 {"name": "kube-api-access", "mountPath": "/var/run/secrets"}],
                                "env": [{"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "env-secret", "key": "p"}}}]}],
                "volumes": [{"name": "cfg", "configMap": {"name": "app"}}, {"name": "tok", "secret": {"secretName": "tok"}},
                            {"name": "kube-api-access", "projected": {"sources": []}}]}}""".formatted(UID);

  @TempDir Path tmp;
  private final RecordingPlugin plugin = new RecordingPlugin();
  private RunningServer pluginServer;
  private PluginClient forward;
  private RunningServer api;
  private WireClient vk;

  @BeforeEach
  void start() {
    pluginServer = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> PluginRoutes.install(config, plugin));
    forward = new PluginClient(pluginServer.address(), null);
    api = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> ApiRoutes.install(config, forward));
    vk = new WireClient(api.address());
  }

  @AfterEach
  void stop() {
    api.close();
    forward.close();
    pluginServer.close();
  }

  @Test
  void createSendsThePluginEachContainersOwnObjectsInSpecOrder() throws Exception {
    String body = """
        {"pod": %s,
         "configmaps": [{"metadata": {"name": "app"}, "data": {"a": "1"}}, {"metadata": {"name": "unused"}}],
         "secrets": [{"metadata": {"name": "tok"}, "data": {"t": "eA=="}}, {"metadata": {"name": "env-secret"}, "data": {"p": "eQ=="}}],
         "projectedvolumesmaps": [{"metadata": {"name": "kube-api-access"}, "data": {"namespace": "default"}}],
         "jobscriptURL": ""}""".formatted(POD);

    HttpResponse<String> response = vk.call("POST", "/create", body);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode answer = WireJson.mapper().readTree(response.body());
    assertThat(answer.isObject()).isTrue();
    assertThat(answer.path("PodUID").asText()).isEqualTo(UID);
    var sent = plugin.created.getFirst();
    assertThat(sent.containersOrEmpty()).extracting(c -> c.name()).containsExactly("init", "main");
    assertThat(sent.containersOrEmpty().getFirst().configMaps()).isNull();
    var main = sent.containersOrEmpty().get(1);
    assertThat(main.configMaps()).extracting(m -> m.getMetadata().getName()).containsExactly("app");
    assertThat(main.secrets()).extracting(s -> s.getMetadata().getName()).containsExactly("tok", "env-secret");
    assertThat(main.projectedvolumemaps()).extracting(m -> m.getMetadata().getName()).containsExactly("kube-api-access");
  }

  @Test
  void deleteIsTheVksDeleteMethodWithThePod() throws Exception {
    HttpResponse<String> response = vk.call("DELETE", "/delete", POD);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(plugin.deleted.getFirst().getMetadata().getUid()).isEqualTo(UID);
  }

  @Test
  void statusIsGetWithAListAndAnswersTheArray() throws Exception {
    HttpResponse<String> response = vk.call("GET", "/status", "[" + POD + "]");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode first = WireJson.mapper().readTree(response.body()).get(0);
    assertThat(first.path("UID").asText()).isEqualTo(UID);
    assertThat(first.path("containers").get(0).path("state").path("terminated").path("exitCode").asInt()).isEqualTo(3);
    assertThat(plugin.statusAsked).hasSize(1);
  }

  @Test
  void logsAreStreamedBackAndBadLogStructsStopHere() throws Exception {
    String good = """
        {"Namespace": "default", "PodUID": "%s", "PodName": "il-api-1", "ContainerName": "main",
         "Opts": {"Tail": 0, "Follow": false, "SinceTime": "0001-01-01T00:00:00Z"}}""".formatted(UID);

    HttpResponse<String> logs = vk.call("GET", "/getLogs", good);
    HttpResponse<String> notUuid = vk.call("GET", "/getLogs", good.replace(UID, "not-a-uuid"));
    HttpResponse<String> both = vk.call("GET", "/getLogs", good.replace("\"Tail\": 0", "\"Tail\": 2, \"Bytes\": 5"));

    assertThat(logs.statusCode()).as(logs.body()).isEqualTo(200);
    assertThat(logs.body()).isEqualTo("line-1\nline-2\n");
    assertThat(notUuid.statusCode()).isEqualTo(400);
    assertThat(WireJson.mapper().readTree(notUuid.body()).path("field").asText()).isEqualTo("PodUID");
    assertThat(both.statusCode()).isEqualTo(400);
    assertThat(plugin.logsAsked).hasSize(1);
  }

  @Test
  void pinglinkPassesThePluginsPing() throws Exception {
    HttpResponse<String> response = vk.call("POST", "/pinglink", null);

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode ping = WireJson.mapper().readTree(response.body());
    assertThat(ping.path("status").asText()).isEqualTo("ok");
    assertThat(ping.path("resources").path("memory").asText()).isEqualTo("16Gi");
    assertThat(ping.path("crigateVolumeRefresh").asBoolean()).as("crigate's own key survives the API").isTrue();
    assertThat(plugin.pings).isEqualTo(1);
  }

  @Test
  void aVolumeRefreshReachesThePluginAsTheVirtualNodeSentIt() throws Exception {
    // what crigate's node sends to re-send a token: the pod marked, the projected volume's fresh files
    String marked = POD.replace("\"uid\": \"%s\"".formatted(UID),
        "\"uid\": \"%s\", \"annotations\": {\"%s\": \"2026-11-26T10:00:00Z\"}".formatted(UID,
            RetrievedPodData.VOLUME_REFRESH_ANNOTATION));
    String body = """
        {"pod": %s, "configmaps": null, "secrets": null, "persistentvolumes": null,
         "projectedvolumesmaps": [{"metadata": {"name": "kube-api-access", "creationTimestamp": null},
                                   "data": {"token": "fresh", "namespace": "default"}}],
         "jobscriptURL": ""}""".formatted(marked);

    HttpResponse<String> response = vk.call("POST", "/create", body);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    var sent = plugin.created.getFirst();
    assertThat(sent.isVolumeRefresh()).isTrue();
    assertThat(sent.containersOrEmpty().get(1).projectedvolumemaps()).singleElement()
        .satisfies(m -> assertThat(m.getData()).containsEntry("token", "fresh"));
  }

  @Test
  void aFailingPluginsStatusAndBodyReachTheVk() throws Exception {
    plugin.failDelete = true;

    HttpResponse<String> response = vk.call("DELETE", "/delete", POD);

    assertThat(response.statusCode()).isEqualTo(500);
    assertThat(response.body()).contains("scancel failed");
  }

  @Test
  void anUnreachablePluginIs503() throws Exception {
    pluginServer.close();

    HttpResponse<String> response = vk.call("POST", "/pinglink", null);

    assertThat(response.statusCode()).isEqualTo(503);
    assertThat(response.body()).contains("cannot be reached");
  }

  @Test
  void theVksBearerTokenIsCheckedWhenConfigured() throws Exception {
    Path token = tmp.resolve("vk-token");
    Files.writeString(token, "vk-secret");
    try (RunningServer guarded = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0").withToken(token),
        config -> ApiRoutes.install(config, forward))) {
      assertThat(new WireClient(guarded.address()).call("POST", "/pinglink", null).statusCode()).isEqualTo(401);
      assertThat(new WireClient(guarded.address(), "vk-secret").call("POST", "/pinglink", null).statusCode()).isEqualTo(200);
    }
  }
}

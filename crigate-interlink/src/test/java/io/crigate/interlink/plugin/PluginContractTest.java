package io.crigate.interlink.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.interlink.RecordingPlugin;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.wire.WireJson;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The plugin API (interlink-plugin-openapi.json) as the Go interLink really speaks it
 * (specs/interlink-wire.md): one RetrievedPodData or a list on /create, GET with a JSON body on
 * /status and /getLogs, a v1.Pod on /delete, {@code GET /status []} as the ping, and the
 * snake_case names of the OpenAPI document itself. Answers must decode in Go: an object (not an
 * array) from a single /create, an array from /status, int exit codes, RFC 3339 times.
 */
class PluginContractTest {

  private static final String POD = """
      {"apiVersion": "v1", "kind": "Pod",
       "metadata": {"name": "il-main-1a2b3c", "namespace": "default", "uid": "0d6a2a5e-0000-4000-8000-000000000001",
                    "annotations": {"slurm-job.vk.io/flags": "--time=00:05:00"}},
       "spec": {"initContainers": [{"name": "init-write", "image": "busybox"}],
                "containers": [{"name": "il-main", "image": "busybox", "command": ["/bin/sh", "-c", "exit 3"],
                                "volumeMounts": [{"name": "cfg", "mountPath": "/cfg"}]}],
                "volumes": [{"name": "cfg", "configMap": {"name": "app"}}]}}""";

  /** interLink 0.5+'s /create body, keys exactly as Go writes them. */
  private static final String RETRIEVED = """
      {"pod": %s,
       "container": [
         {"name": "init-write", "configMaps": null, "projectedvolumemaps": null, "secrets": null, "emptyDirs": null},
         {"name": "il-main", "configMaps": [{"metadata": {"name": "app"}, "data": {"greeting": "hi"}}],
          "projectedvolumemaps": [{"metadata": {"name": "kube-api-access"}, "data": {"namespace": "default"}}],
          "secrets": [{"metadata": {"name": "tok"}, "data": {"token": "c2VjcmV0"}}], "emptyDirs": null}],
       "jobConfig": {"SingularityHubProxy": {"server": "", "master_token": "", "cache_validity_seconds": 0},
                     "ApptainerOptions": {}, "Volumes": {}}}""".formatted(POD);

  @TempDir Path tmp;
  private final RecordingPlugin plugin = new RecordingPlugin();
  private RunningServer server;

  private WireClient serve(HttpEndpoint endpoint) {
    server = HttpServers.start(endpoint, config -> PluginRoutes.install(config, plugin));
    return new WireClient(server.address());
  }

  private WireClient serve() {
    return serve(HttpEndpoint.plain("127.0.0.1:0"));
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  @Test
  void createWithOneObjectAnswersOneCreateStruct() throws Exception {
    HttpResponse<String> response = serve().call("POST", "/create", RETRIEVED);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode answer = WireJson.mapper().readTree(response.body());
    assertThat(answer.isObject()).as("the VK decodes one object; an array fails it").isTrue();
    assertThat(answer.path("PodUID").asText()).isEqualTo("0d6a2a5e-0000-4000-8000-000000000001");
    assertThat(answer.path("PodJID").asText()).isEqualTo("job-1");
    var data = plugin.created.getFirst();
    assertThat(data.pod().getMetadata().getAnnotations()).containsEntry("slurm-job.vk.io/flags", "--time=00:05:00");
    assertThat(data.containersOrEmpty()).extracting(c -> c.name()).containsExactly("init-write", "il-main");
    var main = data.containersOrEmpty().get(1);
    assertThat(main.configMaps().getFirst().getData()).containsEntry("greeting", "hi");
    assertThat(main.projectedvolumemaps().getFirst().getMetadata().getName()).isEqualTo("kube-api-access");
    assertThat(main.secrets().getFirst().getData()).containsEntry("token", "c2VjcmV0");
  }

  @Test
  void createTakesTheFieldsNewerInterLinksAddAndIgnoresWhatItDoesNotUse() throws Exception {
    // persistentVolumeClaims per container and jobScript (a job-script builder's output) come from
    // newer interLink releases: accepted, not used (the job script is the backend's own)
    String newer = RETRIEVED.replace("\"emptyDirs\": null}", "\"emptyDirs\": null, \"persistentVolumeClaims\": null}")
        .replace("\"jobConfig\":", "\"jobScript\": \"#!/bin/sh\\nexit 0\\n\", \"jobConfig\":");

    HttpResponse<String> response = serve().call("POST", "/create", newer);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(plugin.created.getFirst().containersOrEmpty()).extracting(c -> c.name()).containsExactly("init-write", "il-main");
  }

  @Test
  void createWithAListAnswersAList() throws Exception {
    HttpResponse<String> response = serve().call("POST", "/create", "[" + RETRIEVED + "]");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode answer = WireJson.mapper().readTree(response.body());
    assertThat(answer.isArray()).isTrue();
    assertThat(answer.get(0).path("PodUID").asText()).isEqualTo("0d6a2a5e-0000-4000-8000-000000000001");
  }

  @Test
  void createInTheOpenApiDocumentsSnakeCaseIsUnderstoodToo() throws Exception {
    String body = """
        {"pod": %s, "container": [{"name": "il-main", "config_maps": [{"metadata": {"name": "app"}, "data": {"k_1": "v"}}]}]}"""
        .formatted(POD);

    HttpResponse<String> response = serve().call("POST", "/create", body);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(plugin.created.getFirst().containersOrEmpty().getFirst().configMaps().getFirst().getData())
        .as("data keys are file names, never rewritten").containsOnlyKeys("k_1");
  }

  @Test
  void statusIsGetWithABodyAndAnswersAnArrayGoDecodes() throws Exception {
    HttpResponse<String> response = serve().call("GET", "/status", "[" + POD + "]");

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode answer = WireJson.mapper().readTree(response.body());
    assertThat(answer.isArray()).isTrue();
    JsonNode pod = answer.get(0);
    assertThat(pod.fieldNames()).toIterable().contains("name", "UID", "namespace", "JID", "containers", "initContainers");
    assertThat(pod.path("UID").asText()).isEqualTo("0d6a2a5e-0000-4000-8000-000000000001");
    JsonNode terminated = pod.path("containers").get(0).path("state").path("terminated");
    assertThat(terminated.path("exitCode").isInt()).as("an int, never a string or a float").isTrue();
    assertThat(terminated.path("exitCode").asInt()).isEqualTo(3);
    assertThat(terminated.path("startedAt").asText()).isEqualTo("2026-07-14T10:00:00Z");
    assertThat(plugin.statusAsked.getFirst().getFirst().getMetadata().getName()).isEqualTo("il-main-1a2b3c");
  }

  @Test
  void statusAlsoAnswersPost() throws Exception {
    HttpResponse<String> response = serve().call("POST", "/status", "[" + POD + "]");

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(WireJson.mapper().readTree(response.body()).isArray()).isTrue();
  }

  @Test
  void getStatusWithAnEmptyListIsThePing() throws Exception {
    HttpResponse<String> response = serve().call("GET", "/status", "[]");

    assertThat(response.statusCode()).isEqualTo(200);
    JsonNode ping = WireJson.mapper().readTree(response.body());
    assertThat(ping.path("status").asText()).isEqualTo("ok");
    assertThat(ping.path("resources").path("cpu").asText()).isEqualTo("8");
    assertThat(ping.path("taints").get(0).path("effect").asText()).isEqualTo("NoSchedule");
    assertThat(plugin.pings).isEqualTo(1);
    assertThat(plugin.statusAsked).isEmpty();
  }

  @Test
  void getLogsIsGetWithALogStructBody() throws Exception {
    String body = """
        {"Namespace": "default", "PodUID": "0d6a2a5e-0000-4000-8000-000000000001", "PodName": "il-main-1a2b3c",
         "ContainerName": "il-main", "Opts": {"Tail": 5, "Bytes": 0, "Timestamps": false, "Follow": false,
         "Previous": false, "SinceSeconds": 0, "SinceTime": "0001-01-01T00:00:00Z"}}""";

    HttpResponse<String> response = serve().call("GET", "/getLogs", body);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    assertThat(response.body()).isEqualTo("line-1\nline-2\n");
    var asked = plugin.logsAsked.getFirst();
    assertThat(asked.containerName()).isEqualTo("il-main");
    assertThat(asked.optsOrDefault().tail()).isEqualTo(5);
    assertThat(asked.optsOrDefault().since(java.time.Instant.now())).as("Go's zero time means unset").isNull();
  }

  @Test
  void getLogsInSnakeCaseIsUnderstoodToo() throws Exception {
    String body = """
        {"namespace": "default", "pod_uid": "u-1", "pod_name": "p", "container_name": "c",
         "opts": {"tail": 2, "limit_bytes": 10, "timestamps": true}}""";

    HttpResponse<String> response = serve().call("POST", "/getLogs", body);

    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    var asked = plugin.logsAsked.getFirst();
    assertThat(asked.podUid()).isEqualTo("u-1");
    assertThat(asked.optsOrDefault().bytes()).isEqualTo(10);
    assertThat(asked.optsOrDefault().timestamps()).isTrue();
  }

  @Test
  void deleteTakesTheV1PodInterLinkForwards() throws Exception {
    HttpResponse<String> response = serve().call("POST", "/delete", POD);

    assertThat(response.statusCode()).isEqualTo(200);
    assertThat(plugin.deleted.getFirst().getMetadata().getUid()).isEqualTo("0d6a2a5e-0000-4000-8000-000000000001");
  }

  @Test
  void badBodiesAre400NamingTheField() throws Exception {
    WireClient client = serve();

    assertThat(field(client.call("POST", "/create", "{\"container\": []}"))).isEqualTo("body.pod");
    assertThat(field(client.call("POST", "/create", "{not json"))).isEqualTo("body");
    assertThat(field(client.call("GET", "/status", "[{\"metadata\": {\"name\": \"x\"}}]"))).isEqualTo("[0].metadata.uid");
    assertThat(field(client.call("POST", "/delete", "{\"metadata\": {}}"))).isEqualTo("body.metadata.uid");
    assertThat(field(client.call("GET", "/getLogs", "{\"PodUID\": \"u\"}"))).isEqualTo("ContainerName");
    assertThat(field(client.call("GET", "/getLogs", "{\"PodUID\": \"u\", \"ContainerName\": \"c\", \"Opts\": {\"Tail\": -1}}")))
        .isEqualTo("Opts.Tail");
    assertThat(field(client.call("GET", "/status", ""))).isEqualTo("body");
    assertThat(plugin.created).isEmpty();
    assertThat(plugin.deleted).isEmpty();
  }

  private static String field(HttpResponse<String> response) throws Exception {
    assertThat(response.statusCode()).as(response.body()).isEqualTo(400);
    return WireJson.mapper().readTree(response.body()).path("field").asText();
  }

  @Test
  void aBearerTokenIsRequiredWhenConfiguredAndNeverEchoed() throws Exception {
    Path tokenFile = tmp.resolve("token");
    Files.writeString(tokenFile, "s3cr3t-token\n");
    WireClient anonymous = serve(HttpEndpoint.plain("127.0.0.1:0").withToken(tokenFile));

    HttpResponse<String> refused = anonymous.call("GET", "/status", "[]");
    HttpResponse<String> wrong = new WireClient(server.address(), "guess").call("GET", "/status", "[]");
    HttpResponse<String> allowed = new WireClient(server.address(), "s3cr3t-token").call("GET", "/status", "[]");

    assertThat(refused.statusCode()).isEqualTo(401);
    assertThat(wrong.statusCode()).isEqualTo(401);
    assertThat(wrong.body()).doesNotContain("s3cr3t-token");
    assertThat(allowed.statusCode()).isEqualTo(200);
    assertThat(plugin.pings).isEqualTo(1);
  }
}

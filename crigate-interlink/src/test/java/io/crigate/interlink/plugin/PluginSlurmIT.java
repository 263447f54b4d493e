package io.crigate.interlink.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.interlink.MemoryStore;
import io.crigate.interlink.SlurmSite;
import io.crigate.interlink.TestPods;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.interlink.wire.WireJson;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.nio.file.attribute.PosixFilePermissions;
import org.slf4j.LoggerFactory;
import io.crigate.spi.Backend;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * crigate's plugin API server in front of the real Slurm, spoken to as interLink 0.6 does: POST
 * /create with one RetrievedPodData, GET /status and GET /getLogs with a JSON body, POST /delete
 * with the pod.
 */
class PluginSlurmIT {

  private static final ObjectMapper JSON = WireJson.mapper();
  private static final Duration JOB_TIMEOUT = Duration.ofSeconds(90);

  @TempDir Path tmp;
  private Backend backend;
  private CrigatePlugin plugin;
  private RunningServer server;
  private WireClient client;
  private final List<Pod> created = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    serve(SlurmSite.backend(tmp.resolve("backend")));
  }

  /** The plugin API in front of {@code slurm}, volumes on the Slurm work dir: the compute node must see them. */
  private void serve(Backend slurm) {
    backend = slurm;
    PluginSettings settings = new PluginSettings(sharedVolumes(), tmp.resolve("logs"), Duration.ofMillis(300), "",
        PluginSettings.under(tmp).resources(), List.of());
    plugin = new CrigatePlugin(backend, new MemoryStore(), settings, Clock.systemUTC());
    server = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> PluginRoutes.install(config, plugin));
    client = new WireClient(server.address());
  }

  private Path sharedVolumes() {
    return Path.of(SlurmSite.env("CRIGATE_SLURM_WORKDIR")).resolve("interlink-it-" + tmp.getFileName());
  }

  @AfterEach
  void stop() throws Exception {
    for (Pod pod : created) {
      client.call("POST", "/delete", WireJson.write(pod));
    }
    created.clear();
    if (server != null) {
      server.close();
      plugin.close();
    }
    backend.close();
  }

  private JsonNode create(Pod pod, List<Map<String, Object>> containers) throws Exception {
    created.add(pod);
    HttpResponse<String> response = client.call("POST", "/create",
        WireJson.write(Map.of("pod", pod, "container", containers, "jobConfig", Map.of())));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return JSON.readTree(response.body());
  }

  private JsonNode create(Pod pod) throws Exception {
    return create(pod, List.of(Map.of("name", "main")));
  }

  private JsonNode status(Pod pod) throws Exception {
    HttpResponse<String> response = client.call("GET", "/status", WireJson.write(List.of(pod)));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    JsonNode answer = JSON.readTree(response.body());
    assertThat(answer.isArray()).isTrue();
    return answer.get(0);
  }

  private JsonNode awaitTerminated(Pod pod, String container) {
    await().atMost(JOB_TIMEOUT).pollInterval(Duration.ofMillis(300)).until(() ->
        terminated(status(pod), container) != null);
    try {
      return terminated(status(pod), container);
    } catch (Exception e) {
      throw new AssertionError(e);
    }
  }

  private static JsonNode terminated(JsonNode report, String container) {
    for (String list : new String[] {"containers", "initContainers"}) {
      for (JsonNode c : report.path(list)) {
        if (c.path("name").asText().equals(container) && c.path("state").has("terminated")) {
          return c.path("state").path("terminated");
        }
      }
    }
    return null;
  }

  @Test
  void podThatExitsZeroSucceedsWithItsTimes() throws Exception {
    Pod pod = TestPods.shell("il-ok", "echo hello-from-slurm");
    JsonNode answer = create(pod);

    assertThat(answer.path("PodUID").asText()).isEqualTo(pod.getMetadata().getUid());
    assertThat(answer.path("PodJID").asText()).isNotEmpty();
    JsonNode done = awaitTerminated(pod, "main");
    assertThat(done.path("exitCode").isInt()).as("an int, never a string or float").isTrue();
    assertThat(done.path("exitCode").asInt()).isZero();
    assertThat(done.path("reason").asText()).isEqualTo("Completed");
    assertThat(done.path("startedAt").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    assertThat(done.path("finishedAt").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ");
    JsonNode report = status(pod);
    assertThat(report.path("UID").asText()).isEqualTo(pod.getMetadata().getUid());
    assertThat(report.path("name").asText()).isEqualTo(pod.getMetadata().getName());
  }

  @Test
  void podThatExitsThreeFailsWithCodeThree() throws Exception {
    Pod pod = TestPods.shell("il-three", "echo about-to-fail; exit 3");
    create(pod);

    JsonNode done = awaitTerminated(pod, "main");
    assertThat(done.path("exitCode").asInt()).isEqualTo(3);
    assertThat(done.path("reason").asText()).isEqualTo("Error");
  }

  @Test
  void podThatSlurmRefusesIsFailedWithTheReasonNotPending() throws Exception {
    Pod pod = TestPods.shell("il-refused", "true", Map.of("slurm-job.vk.io/flags", "--partition=no-such-partition-il"));
    JsonNode answer = create(pod);

    assertThat(answer.path("PodUID").asText()).isEqualTo(pod.getMetadata().getUid());
    JsonNode done = terminated(status(pod), "main");
    assertThat(done).as("reported at once, not after a timeout").isNotNull();
    assertThat(done.path("exitCode").asInt()).isEqualTo(StatusReader.START_ERROR_EXIT_CODE);
    assertThat(done.path("reason").asText()).isEqualTo(PodLauncher.SUBMIT_FAILED);
    assertThat(done.path("message").asText()).containsIgnoringCase("partition");
  }

  @Test
  void initContainersRunFirstInOrderAndVolumesAreFiles() throws Exception {
    Pod base = TestPods.shell("il-init", "");
    String uid = base.getMetadata().getUid();
    Path shared = Path.of(SlurmSite.env("CRIGATE_SLURM_WORKDIR")).resolve("interlink-it-" + tmp.getFileName());
    Path scratch = shared.resolve(uid).resolve("scratch");
    Path config = shared.resolve(uid).resolve("config");
    // runner "none" runs on the node without a container, so the jobs use the volume's host directory
    Pod pod = new PodBuilder(base).editSpec()
        .addNewVolume().withName("scratch").withNewEmptyDir().endEmptyDir().endVolume()
        .addNewVolume().withName("config").withNewConfigMap().withName("app-config").endConfigMap().endVolume()
        .withInitContainers(
            new ContainerBuilder().withName("first").withImage("busybox").withCommand("/bin/sh", "-c",
                "sleep 1; echo first >> " + scratch + "/order").addNewVolumeMount().withName("scratch")
                .withMountPath("/scratch").endVolumeMount().build(),
            new ContainerBuilder().withName("second").withImage("busybox").withCommand("/bin/sh", "-c",
                "echo second >> " + scratch + "/order").build())
        .editFirstContainer().withCommand("/bin/sh", "-c", "cat " + scratch + "/order " + config + "/greeting")
        .addNewVolumeMount().withName("config").withMountPath("/config").endVolumeMount()
        .addNewVolumeMount().withName("scratch").withMountPath("/scratch").endVolumeMount().endContainer()
        .endSpec().build();
    var configMap = new ConfigMapBuilder().withNewMetadata().withName("app-config").endMetadata()
        .addToData("greeting", "hello from a configmap").build();
    create(pod, List.of(Map.of("name", "first"), Map.of("name", "second"),
        Map.of("name", "main", "configMaps", List.of(configMap))));

    assertThat(Files.readString(config.resolve("greeting"))).isEqualTo("hello from a configmap");
    assertThat(awaitTerminated(pod, "main").path("exitCode").asInt()).isZero();
    JsonNode report = status(pod);
    assertThat(report.path("initContainers")).extracting(c -> c.path("name").asText()).containsExactly("first", "second");
    assertThat(report.path("initContainers")).allSatisfy(c ->
        assertThat(c.path("state").path("terminated").path("exitCode").asInt()).isZero());
    await().atMost(Duration.ofSeconds(10)).until(() -> logs(pod, "main", false).contains("hello from a configmap"));
    assertThat(logs(pod, "main", false)).isEqualTo("first\nsecond\nhello from a configmap\n");
  }

  /**
   * A site logs the backend in as a cluster account: its jobs run as that account, so the pod's
   * volumes must be that account's. Before they were handed over, the job could not write its
   * emptyDir nor read its Secret (0600, crigate's).
   */
  @Test
  void aPodOfABackendLoggedInAsAClusterAccountWritesItsEmptyDirAndReadsItsSecret() throws Exception {
    stop();
    String user = SlurmSite.env("CRIGATE_SSH_PASSWORD_USER"); // sshd takes the infra's key for any user
    serve(SlurmSite.backendOverSsh(tmp.resolve("backend-ssh"), user));
    Pod base = TestPods.shell("il-account", "");
    Path podVolumes = sharedVolumes().resolve(base.getMetadata().getUid());
    Pod pod = new PodBuilder(base).editSpec()
        .addNewVolume().withName("scratch").withNewEmptyDir().endEmptyDir().endVolume()
        .addNewVolume().withName("creds").withNewSecret().withSecretName("db").endSecret().endVolume()
        .editFirstContainer().withCommand("/bin/sh", "-c", "id -un > %1$s/scratch/who && cat %1$s/scratch/who %1$s/creds/password"
            .formatted(podVolumes))
        .addNewVolumeMount().withName("scratch").withMountPath("/scratch").endVolumeMount()
        .addNewVolumeMount().withName("creds").withMountPath("/creds").endVolumeMount().endContainer()
        .endSpec().build();
    var secret = new SecretBuilder().withNewMetadata().withName("db").endMetadata().addToStringData("password", "s3cret-pw").build();
    create(pod, List.of(Map.of("name", "main", "secrets", List.of(secret))));

    assertThat(awaitTerminated(pod, "main").path("exitCode").asInt()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> logs(pod, "main", false).contains("s3cret-pw"));
    assertThat(logs(pod, "main", false)).isEqualTo(user + "\ns3cret-pw\n");
  }

  @Test
  void aProjectedTokenAndDownwardFilesAreReadByTheJobRefreshedInPlaceAndGoneWithThePod() throws Exception {
    Logger crigate = (Logger) LoggerFactory.getLogger("io.crigate");
    crigate.setLevel(Level.DEBUG);
    ListAppender<ILoggingEvent> logLines = new ListAppender<>();
    logLines.start();
    ((Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME)).addAppender(logLines);
    Pod base = TestPods.shell("il-token", "");
    String uid = base.getMetadata().getUid();
    Path shared = Path.of(SlurmSite.env("CRIGATE_SLURM_WORKDIR")).resolve("interlink-it-" + tmp.getFileName());
    Path access = shared.resolve(uid).resolve("kube-api-access");
    // the job waits (at most 60 s) for the token to change, as a client re-reading its token file does
    String script = "cat %1$s/token; echo; cat %1$s/namespace; echo; i=0; while [ \"$(cat %1$s/token)\" = eyJ-first-secret ]"
        + " && [ $i -lt 300 ]; do sleep 0.2; i=$((i+1)); done; cat %1$s/token; echo";
    Pod pod = new PodBuilder(base).editSpec()
        .addNewVolume().withName("kube-api-access").withNewProjected().withDefaultMode(0640)
        .addNewSource().withNewServiceAccountToken().withPath("token").withExpirationSeconds(600L).endServiceAccountToken()
        .endSource()
        .addNewSource().withNewDownwardAPI().addNewItem().withPath("namespace").withMode(0600).withNewFieldRef()
        .withFieldPath("metadata.namespace").endFieldRef().endItem().endDownwardAPI().endSource()
        .endProjected().endVolume()
        .editFirstContainer().withCommand("/bin/sh", "-c", script.formatted(access))
        .addNewVolumeMount().withName("kube-api-access").withMountPath("/var/run/secrets/kubernetes.io/serviceaccount")
        .endVolumeMount().endContainer().endSpec().build();
    byte[] keystore = {(byte) 0xfe, (byte) 0xed, 0x00, (byte) 0x80, 0x0a};
    JsonNode answer = create(pod, List.of(Map.of("name", "main", "projectedvolumemaps", List.of(Map.of(
        "metadata", Map.of("name", "kube-api-access"), "data", Map.of("token", "eyJ-first-secret", "namespace", "it"),
        "binaryData", Map.of("keystore", java.util.Base64.getEncoder().encodeToString(keystore)))))));

    assertThat(access.resolve("keystore")).as("a binary file, byte for byte").hasBinaryContent(keystore);
    assertThat(Files.getPosixFilePermissions(access.resolve("token"))).isEqualTo(PosixFilePermissions.fromString("rw-r-----"));
    assertThat(Files.getPosixFilePermissions(access.resolve("namespace"))).isEqualTo(PosixFilePermissions.fromString("rw-------"));
    await().atMost(JOB_TIMEOUT).until(() -> logs(pod, "main", false).contains("it\n"));
    Pod refresh = new PodBuilder(pod).editMetadata().addToAnnotations(RetrievedPodData.VOLUME_REFRESH_ANNOTATION, "now")
        .endMetadata().build();
    HttpResponse<String> refreshed = client.call("POST", "/create", WireJson.write(Map.of("pod", refresh, "container",
        List.of(Map.of("name", "main", "projectedvolumemaps", List.of(Map.of("metadata", Map.of("name", "kube-api-access"),
            "data", Map.of("token", "eyJ-second-secret", "namespace", "it"))))))));
    assertThat(refreshed.statusCode()).as(refreshed.body()).isEqualTo(200);
    assertThat(JSON.readTree(refreshed.body()).path("PodJID").asText()).as("the same job").isEqualTo(answer.path("PodJID").asText());

    assertThat(awaitTerminated(pod, "main").path("exitCode").asInt()).isZero();
    await().atMost(Duration.ofSeconds(10)).until(() -> logs(pod, "main", false).contains("eyJ-second-secret"));
    assertThat(logs(pod, "main", false)).isEqualTo("eyJ-first-secret\nit\neyJ-second-secret\n");
    assertThat(Files.getPosixFilePermissions(access.resolve("token"))).as("the mode survives the rewrite")
        .isEqualTo(PosixFilePermissions.fromString("rw-r-----"));

    assertThat(client.call("POST", "/delete", WireJson.write(pod)).statusCode()).isEqualTo(200);
    created.remove(pod);
    assertThat(shared.resolve(uid)).as("the token goes with the pod").doesNotExist();
    HttpResponse<String> late = client.call("POST", "/create", WireJson.write(Map.of("pod", refresh, "container",
        List.of(Map.of("name", "main")))));
    assertThat(late.statusCode()).as("a refresh of a deleted pod creates nothing").isEqualTo(404);
    assertThat(backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList())
        .noneMatch(c -> uid.equals(c.getLabelsMap().get(PodTranslator.LABEL_UID)));
    assertThat(logLines.list).as("log lines were captured").isNotEmpty();
    assertThat(logLines.list).allSatisfy(event -> assertThat(event.getFormattedMessage()).doesNotContain("secret"));
  }

  private String logs(Pod pod, String container, boolean follow) throws Exception {
    HttpResponse<String> response = client.call("GET", "/getLogs", WireJson.write(Map.of("Namespace", "it",
        "PodUID", pod.getMetadata().getUid(), "PodName", pod.getMetadata().getName(), "ContainerName", container,
        "Opts", Map.of("Follow", follow, "SinceTime", "0001-01-01T00:00:00Z"))));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return response.body();
  }

  @Test
  void followedLogsStreamWhileTheJobRunsAndEndWithIt() throws Exception {
    Pod pod = TestPods.shell("il-follow", "echo line-1; sleep 3; echo line-2; sleep 1; echo line-3");
    create(pod);
    await().atMost(JOB_TIMEOUT).until(() -> status(pod).path("containers").get(0).path("state").has("running"));

    HttpResponse<InputStream> response = client.stream("GET", "/getLogs", WireJson.write(Map.of(
        "Namespace", "it", "PodUID", pod.getMetadata().getUid(), "PodName", pod.getMetadata().getName(),
        "ContainerName", "main", "Opts", Map.of("Follow", true))));
    assertThat(response.statusCode()).isEqualTo(200);
    try (BufferedReader lines = new BufferedReader(new InputStreamReader(response.body(), StandardCharsets.UTF_8))) {
      assertThat(lines.readLine()).isEqualTo("line-1");
      assertThat(terminated(status(pod), "main")).as("line-1 arrived while the job still ran").isNull();
      assertThat(lines.readLine()).isEqualTo("line-2");
      assertThat(lines.readLine()).isEqualTo("line-3");
      assertThat(lines.readLine()).as("the stream ends with the job").isNull();
    }
  }

  @Test
  void deleteCancelsTheJobAndForgetsThePod() throws Exception {
    Pod pod = TestPods.shell("il-delete", "sleep 300");
    create(pod);
    await().atMost(JOB_TIMEOUT).until(() -> status(pod).path("containers").get(0).path("state").has("running"));
    String containerId = backend.listContainers(ListContainersRequest.getDefaultInstance()).getContainersList().stream()
        .filter(c -> pod.getMetadata().getUid().equals(c.getLabelsMap().get(PodTranslator.LABEL_UID)))
        .findFirst().orElseThrow().getId();
    // the plugin may report running before the poller has seen the job: wait for Slurm itself
    await().atMost(JOB_TIMEOUT).until(() -> SlurmSite.jobState("crigate-" + containerId).equals("RUNNING"));

    HttpResponse<String> deleted = client.call("POST", "/delete", WireJson.write(pod));

    assertThat(deleted.statusCode()).as(deleted.body()).isEqualTo(200);
    // SIGTERM starts the grace period: a job that dies of it is FAILED (signal 15), else it is cancelled
    assertThat(SlurmSite.jobState("crigate-" + containerId)).isIn("FAILED", "CANCELLED", "");
    JsonNode after = status(pod);
    assertThat(after.path("containers").get(0).path("state").path("waiting").path("reason").asText())
        .isEqualTo(StatusReader.UNKNOWN_POD);
    HttpResponse<String> again = client.call("POST", "/delete", WireJson.write(pod));
    assertThat(again.statusCode()).as("an unknown pod's delete is a defined no-op").isEqualTo(200);
    assertThat(again.body()).contains("not known");
  }
}

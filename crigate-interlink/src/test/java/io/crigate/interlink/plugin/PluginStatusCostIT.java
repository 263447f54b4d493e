package io.crigate.interlink.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.backend.slurm.CountedSlurm;
import io.crigate.interlink.MemoryStore;
import io.crigate.interlink.SlurmSite;
import io.crigate.interlink.TestPods;
import io.crigate.interlink.WireClient;
import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.wire.WireJson;
import io.fabric8.kubernetes.api.model.Pod;
import java.net.http.HttpResponse;
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
 * interLink's Slurm plugin runs squeue per pod on every /status; here a /status for any number of
 * pods is answered from the backend's poller, so Slurm sees one squeue per poll interval however
 * many pods are asked about and however often. Counted with the backend's real commands, not timed.
 */
class PluginStatusCostIT {

  private static final int PODS = 12;
  private static final int STATUS_ROUNDS = 20;

  @TempDir Path tmp;
  private CountedSlurm slurm;
  private CrigatePlugin plugin;
  private RunningServer server;
  private WireClient client;
  private final List<Pod> pods = new ArrayList<>();

  @BeforeEach
  void start() throws Exception {
    ObjectNode settings = new ObjectMapper().createObjectNode();
    settings.put("workDir", SlurmSite.env("CRIGATE_SLURM_WORKDIR"));
    settings.put("pollIntervalMillis", 500);
    settings.put("transport", "local");
    slurm = new CountedSlurm("interlink-cost", settings, tmp.resolve("backend"), new MemoryStore());
    Path shared = Path.of(SlurmSite.env("CRIGATE_SLURM_WORKDIR")).resolve("interlink-cost-" + tmp.getFileName());
    plugin = new CrigatePlugin(slurm.backend(), new MemoryStore(),
        PluginSettings.under(tmp).withVolumeDir(shared), Clock.systemUTC());
    server = HttpServers.start(HttpEndpoint.plain("127.0.0.1:0"), config -> PluginRoutes.install(config, plugin));
    client = new WireClient(server.address());
  }

  @AfterEach
  void stop() throws Exception {
    for (Pod pod : pods) {
      client.call("POST", "/delete", WireJson.write(pod));
    }
    if (server != null) {
      server.close();
      plugin.close();
    }
    if (slurm != null) {
      slurm.backend().close();
    }
  }

  @Test
  void statusCostsOneSqueuePerPollWhateverTheNumberOfPods() throws Exception {
    for (int i = 0; i < PODS; i++) {
      // begin in an hour: the jobs stay queued and take nothing from the shared cluster (--hold is not a pod option)
      Pod pod = TestPods.shell("il-cost", "true", Map.of("slurm-job.vk.io/flags", "--begin=now+1hour"));
      pods.add(pod);
      HttpResponse<String> created = client.call("POST", "/create",
          WireJson.write(Map.of("pod", pod, "container", List.of(Map.of("name", "main")))));
      assertThat(created.statusCode()).as(created.body()).isEqualTo(200);
    }
    await().atMost(Duration.ofSeconds(30)).until(() -> allQueued(status(pods)));

    long squeueBefore = slurm.count("squeue");
    long pollsBefore = slurm.polls();
    int answered = 0;
    for (int round = 0; round < STATUS_ROUNDS; round++) {
      answered += status(pods).size();
      answered += status(pods.subList(0, 1)).size();
    }
    long polls = slurm.polls() - pollsBefore;
    long squeues = slurm.count("squeue") - squeueBefore;

    assertThat(answered).isEqualTo(STATUS_ROUNDS * (PODS + 1));
    // a poll in flight at either reading may have run its squeue without being counted as done yet
    assertThat(squeues).as("%d squeue for %d polls while answering %d pod statuses", squeues, polls, answered)
        .isLessThanOrEqualTo(polls + 1);
    assertThat(slurm.count("sbatch")).isEqualTo(PODS);
  }

  private JsonNode status(List<Pod> asked) throws Exception {
    HttpResponse<String> response = client.call("GET", "/status", WireJson.write(asked));
    assertThat(response.statusCode()).as(response.body()).isEqualTo(200);
    return WireJson.mapper().readTree(response.body());
  }

  /** Every pod's container waits in Slurm's queue (held), as the poller has seen it. */
  private static boolean allQueued(JsonNode reports) {
    for (JsonNode report : reports) {
      JsonNode waiting = report.path("containers").get(0).path("state").path("waiting");
      if (!waiting.path("reason").asText().equals("SlurmPending")) {
        return false;
      }
    }
    return true;
  }
}

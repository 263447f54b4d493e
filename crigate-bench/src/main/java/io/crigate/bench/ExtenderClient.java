package io.crigate.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * kube-scheduler's side of the extender protocol, {@code nodeCacheCapable: true}: {@code POST
 * {urlPrefix}/prioritize} with the pod and the candidates' names, answered with a score of 0..10 per
 * host.
 */
final class ExtenderClient {

  /** kube-scheduler's own default {@code httpTimeout} for an extender. */
  private static final Duration TIMEOUT = Duration.ofSeconds(5);

  private final HttpClient http = HttpClient.newBuilder().connectTimeout(TIMEOUT).build();
  private final ObjectMapper json = new ObjectMapper();
  private final KubernetesSerialization kube = new KubernetesSerialization();
  private final URI prioritize;

  /** @param urlPrefix e.g. {@code http://127.0.0.1:26080/crigate} */
  ExtenderClient(String urlPrefix) {
    this.prioritize = URI.create(urlPrefix + "/prioritize");
  }

  /** The extender's score per candidate; throws when it does not answer 200. */
  Map<String, Long> prioritize(Pod pod, List<String> candidates) {
    return prioritize(pod, candidates, true);
  }

  /**
   * As {@link #prioritize(Pod, List)}; without {@code named} the pod goes without its name, so the
   * extender cannot count it on its likely node until its binding shows ({@code NodeLoads.assume}
   * needs the name): the extender as it scored before that burst fix, for the burst's baseline.
   */
  Map<String, Long> prioritize(Pod pod, List<String> candidates, boolean named) {
    ObjectNode args = json.createObjectNode();
    JsonNode sent = kube.convertValue(pod, JsonNode.class);
    if (!named && sent.get("metadata") instanceof ObjectNode metadata) {
      metadata.remove("name");
    }
    args.set("Pod", sent);
    args.set("NodeNames", json.valueToTree(candidates));
    try {
      HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(prioritize).timeout(TIMEOUT)
          .header("Content-Type", "application/json")
          .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(args))).build(),
          HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() != 200) {
        throw new IllegalStateException("extender answered %d to prioritize: %s"
            .formatted(response.statusCode(), new String(response.body())));
      }
      Map<String, Long> scores = new HashMap<>();
      for (JsonNode host : json.readTree(response.body())) {
        scores.put(host.get("Host").asText(), host.get("Score").asLong());
      }
      return scores;
    } catch (IOException e) {
      throw new UncheckedIOException("prioritize at " + prioritize, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted calling the extender", e);
    }
  }
}

package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeLayerInventory;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A prioritize answer copies each host's JSON string as {@link NodeTable} encoded it once. The
 * bytes must be exactly those of a generator that encodes every host's String: the same hosts in
 * the request's order, the same escapes (quotes, backslashes, control characters), the same UTF-8
 * for names that are not ASCII, and over HTTP the same body, small or large, with a Content-Length
 * that matches it.
 */
class ExtenderAnswerBytesTest {

  static final Layer BASE = new Layer("sha256:" + "a".repeat(64), 300_000_000);
  static final Layer APP = new Layer("sha256:" + "b".repeat(64), 40_000_000);
  static final ImageLayers IMAGE = new ImageLayers("reg/app:1", "sha256:" + "c".repeat(64), List.of(BASE, APP));
  /** Names that need escaping or are not ASCII, beside ordinary ones. */
  static final List<String> ODD = List.of("quote\"d", "back\\slash", "tab\there", "nul\u0000byte", "nœud-ü",
      "rocket-\uD83D\uDE80", "line\nbreak", "slash/ok");

  final ObjectMapper mapper = new ObjectMapper();
  final NodeTable nodes = new NodeTable();
  final LayerIndex index = new LayerIndex(nodes);
  final NodeLoads loads = new NodeLoads(nodes);
  final ExtenderVerbs verbs = new ExtenderVerbs(index, loads, reference -> IMAGE);
  ExtenderServer server;

  ExtenderAnswerBytesTest() {
    List<String> known = Stream.concat(ODD.stream(), IntStream.range(0, 1200).mapToObj(i -> "node-" + i)).toList();
    for (int i = 0; i < known.size(); i++) {
      Map<String, Long> held = new LinkedHashMap<>();
      held.put(BASE.digest(), BASE.size());
      if (i % 3 == 0) {
        held.put(APP.digest(), APP.size());
      }
      if (i % 5 != 4) { // some nodes publish nothing
        index.put(new NodeLayerInventory(known.get(i), held, java.util.Set.of(), Instant.EPOCH));
      }
      loads.allocatable(known.get(i), 8000);
      loads.addRequested(known.get(i), (i * 137L) % 7000, i % 11);
    }
  }

  @AfterEach
  void stop() {
    if (server != null) {
      server.close();
    }
  }

  /** Known names, names the extender has not seen (in the request twice), and the odd ones. */
  static List<String> candidates(int plain) {
    List<String> names = new ArrayList<>(ODD);
    names.addAll(IntStream.range(0, plain).mapToObj(i -> "node-" + i).toList());
    names.addAll(List.of("unseen-\"one\"", "unseen-ß", "unseen-\"one\"", "node-3"));
    return names;
  }

  byte[] request(List<String> names) throws IOException {
    var args = mapper.createObjectNode();
    var pod = args.putObject("Pod");
    pod.putObject("metadata").put("name", "p").put("namespace", "default");
    var container = pod.putObject("spec").putArray("containers").addObject();
    container.put("name", "app").put("image", "reg/app:1");
    container.putObject("resources").putObject("requests").put("cpu", "250m");
    names.forEach(args.putArray("NodeNames")::add);
    return mapper.writeValueAsBytes(args);
  }

  /** What the earlier path wrote for these hosts and scores: each host's String encoded by the generator. */
  byte[] earlierAnswer(JsonNode answer) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (JsonGenerator json = mapper.getFactory().createGenerator(out)) {
      json.writeStartArray();
      for (JsonNode entry : answer) {
        json.writeStartObject();
        json.writeFieldName("Host");
        json.writeString(entry.get("Host").textValue());
        json.writeFieldName("Score");
        json.writeNumber(entry.get("Score").longValue());
        json.writeEndObject();
      }
      json.writeEndArray();
    }
    return out.toByteArray();
  }

  void assertAnswers(List<String> names, byte[] answer) throws IOException {
    JsonNode parsed = mapper.readTree(answer);
    assertThat(parsed.findValuesAsText("Host")).isEqualTo(names);
    assertThat(new String(answer, StandardCharsets.UTF_8)).isEqualTo(new String(earlierAnswer(parsed), StandardCharsets.UTF_8));
    assertThat(answer).isEqualTo(earlierAnswer(parsed));
  }

  @Test
  void inProcessTheAnswerIsWhatTheGeneratorWroteForEachHost() throws IOException {
    List<String> names = candidates(50);
    byte[] body = request(names);
    assertAnswers(names, verbs.prioritize(body)); // the unseen names as the parse made them
    assertAnswers(names, verbs.prioritize(body)); // now from the table
    assertThat(mapper.readTree(verbs.prioritize(body)).findValues("Score")).anyMatch(s -> s.longValue() > 0)
        .anyMatch(s -> s.longValue() < 100);
  }

  @Test
  void overHttpLargeAndSmallAnswersAreTheSameBytesWithTheirLength() throws Exception {
    server = new ExtenderServer("127.0.0.1", 0, "/crigate", false, index, loads, reference -> IMAGE);
    HttpClient http = HttpClient.newHttpClient();
    URI uri = URI.create("http://127.0.0.1:" + server.port() + "/crigate/prioritize");
    for (int plain : List.of(3, 1200)) {
      List<String> names = candidates(plain);
      for (int round = 0; round < 3; round++) { // the second and later calls reuse the call's buffers
        HttpResponse<byte[]> response = http.send(HttpRequest.newBuilder(uri).header("Accept-Encoding", "gzip")
            .POST(HttpRequest.BodyPublishers.ofByteArray(request(names))).build(), HttpResponse.BodyHandlers.ofByteArray());
        assertThat(response.statusCode()).isEqualTo(200);
        byte[] answer = response.body();
        assertThat(answer.length).as("answer of %d hosts", plain).isGreaterThan(plain * 20);
        assertThat(response.headers().firstValueAsLong("Content-Length")).hasValue(answer.length);
        assertThat(response.headers().firstValue("Content-Type")).hasValue("application/json");
        assertThat(response.headers().firstValue("Content-Encoding")).isEmpty();
        assertAnswers(names, answer);
      }
    }
  }
}

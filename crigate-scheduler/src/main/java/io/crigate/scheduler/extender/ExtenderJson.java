package io.crigate.scheduler.extender;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonRecyclerPools;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.scheduler.LayerLocality;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.LongStream;

/**
 * kube-scheduler's extender wire format ({@code k8s.io/kube-scheduler/extender/v1}): Go structs
 * without JSON tags, so keys are the PascalCase field names. Go decodes keys case-insensitively,
 * and so do we for the top-level keys.
 */
final class ExtenderJson {

  /** What follows a host entry's start ({@link #hostEntry}) for each score an answer can carry: the number and the closing brace. */
  private static final byte[][] SCORE_ENDS = LongStream.rangeClosed(0, LayerLocality.MAX_EXTENDER_PRIORITY)
      .mapToObj(score -> (score + "}").getBytes(StandardCharsets.US_ASCII)).toArray(byte[][]::new);
  private static final byte[] ARRAY_START = {'['};
  private static final byte[] COMMA = {','};
  private static final byte[] ARRAY_END = {']'};
  /** Writes the host entries' starts: the same writer as {@link #mapper}'s, without its shared buffer pool. */
  private static final JsonFactory ENTRY_WRITER = new JsonFactory();

  /**
   * Jackson's buffers come from a shared pool, not its default per-thread one: the HTTP server runs
   * each request on a new virtual thread, where a per-thread pool would allocate them every call.
   */
  private final ObjectMapper mapper = new ObjectMapper(JsonFactory.builder()
      .recyclerPool(JsonRecyclerPools.sharedConcurrentDequePool()).build());
  private final NodeTable nodes;

  /** @param nodes resolves the request's node names: the table of the index and the loads the call reads */
  ExtenderJson(NodeTable nodes) {
    this.nodes = nodes;
  }

  /**
   * Parses the whole request from the call's buffer: the pod's few fields the score reads ({@link PodJson}), and
   * NodeNames (thousands of strings on every request) into {@code buffers.names} and {@code buffers.entries}
   * as {@link NodeTable} keeps them, without a tree or a String per name. Only Nodes, which a filter
   * answer must echo, is read as a tree.
   */
  ExtenderArgs parseArgs(CallBuffers.Body body, CallBuffers buffers) {
    PodJson pod = null;
    JsonNode nodes = null;
    boolean named = false;
    try (JsonParser parser = mapper.getFactory().createParser(body.bytes(), 0, body.size())) {
      if (parser.nextToken() != JsonToken.START_OBJECT) {
        throw new InvalidArgument("request body must be a JSON object with Pod and Nodes or NodeNames");
      }
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String field = parser.currentName().toLowerCase(Locale.ROOT);
        JsonToken value = parser.nextToken();
        switch (field) {
          case "pod" -> pod = PodJson.read(parser);
          case "nodes" -> nodes = parser.readValueAsTree();
          case "nodenames" -> named = value != JsonToken.VALUE_NULL && names(parser, buffers);
          default -> parser.skipChildren();
        }
      }
    } catch (JsonProcessingException e) {
      throw new InvalidArgument("request body is not JSON: " + e.getOriginalMessage());
    } catch (IOException e) {
      throw new InvalidArgument("request body unreadable: " + e.getMessage());
    }
    if (pod == null) {
      throw new InvalidArgument("missing Pod");
    }
    return new ExtenderArgs(pod.request(), pod.cpuMillis(),
        named ? new CandidateNodes.Names(buffers.names) : nodeList(nodes));
  }

  /** Reads the array into {@code buffers.names} and {@code buffers.entries}; true once read (a later NodeNames key replaces it, as for any key). */
  private boolean names(JsonParser parser, CallBuffers buffers) throws IOException {
    if (parser.currentToken() != JsonToken.START_ARRAY) {
      throw new InvalidArgument("NodeNames must be an array of strings");
    }
    buffers.names.clear();
    buffers.entries.clear();
    buffers.unseen.clear();
    while (parser.nextToken() != JsonToken.END_ARRAY) {
      if (parser.currentToken() != JsonToken.VALUE_STRING || parser.getTextLength() == 0) {
        throw new InvalidArgument("NodeNames entry must be a non-empty string");
      }
      char[] chars = parser.getTextCharacters();
      int offset = parser.getTextOffset();
      int length = parser.getTextLength();
      NodeTable.Entry node = nodes.find(chars, offset, length);
      if (node == null) {
        node = new NodeTable.Entry(new String(chars, offset, length));
        buffers.unseen.add(node);
      }
      buffers.names.add(node.string());
      buffers.entries.add(node);
    }
    if (!buffers.unseen.isEmpty()) {
      nodes.addAll(buffers.unseen);
    }
    return true;
  }

  private static CandidateNodes nodeList(JsonNode nodeList) {
    if (nodeList != null && !nodeList.isNull()) {
      if (!nodeList.isObject() || !nodeList.path("items").isArray()) {
        throw new InvalidArgument("Nodes must be a v1.NodeList with an items array");
      }
      List<String> names = new ArrayList<>();
      nodeList.path("items").forEach(n -> names.add(requireText(n.path("metadata").path("name"), "Nodes item metadata.name")));
      return new CandidateNodes.NodeList((ObjectNode) nodeList, names);
    }
    throw new InvalidArgument("request has neither Nodes nor NodeNames");
  }

  private static String requireText(JsonNode node, String what) {
    if (!node.isTextual() || node.asText().isEmpty()) {
      throw new InvalidArgument(what + " must be a non-empty string");
    }
    return node.asText();
  }

  /**
   * The start of a host's entry in a prioritize answer, {@code {"Host":"name","Score":}, as this
   * class's generator writes it, in UTF-8: encoded once per node ({@link NodeTable.Entry}) and
   * copied into each answer, where writing the two field names and encoding the name for each of
   * 5,000 hosts was a fifth of a call.
   */
  static byte[] hostEntry(String host) {
    ByteArrayOutputStream written = new ByteArrayOutputStream(host.length() + 24);
    try (JsonGenerator json = ENTRY_WRITER.createGenerator(written)) {
      json.disable(JsonGenerator.Feature.AUTO_CLOSE_JSON_CONTENT);
      json.writeStartObject();
      json.writeFieldName("Host");
      json.writeString(host);
      json.writeFieldName("Score");
      json.writeRaw(':'); // the generator writes a field's colon with its value, which the answer adds
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
    return written.toByteArray();
  }

  /**
   * {@code [{"Host": name, "Score": n}, ...]} into {@code out}: thousands of entries, each the
   * host's entry start ({@link #hostEntry}, which the generator encoded) followed by its score and
   * the closing brace. Only punctuation and digits are added here; through the generator's raw
   * writes, each entry cost a call chain and a look through a {@code SerializedString} to its bytes.
   */
  void priorities(Priorities priorities, CallBuffers.Answer out) {
    List<NodeTable.Entry> hosts = priorities.hosts();
    long[] scores = priorities.scores();
    out.append(ARRAY_START);
    for (int i = 0; i < hosts.size(); i++) {
      if (i > 0) {
        out.append(COMMA);
      }
      out.append(hosts.get(i).hostEntry());
      long score = scores[i];
      // a score is never outside 0..MAX_EXTENDER_PRIORITY, but if so it is still written
      out.append(score >= 0 && score < SCORE_ENDS.length ? SCORE_ENDS[(int) score] : (score + "}").getBytes(StandardCharsets.US_ASCII));
    }
    out.append(ARRAY_END);
  }

  /** {@code {"Nodes"|"NodeNames", "FailedNodes", "FailedAndUnresolvableNodes", "Error"}} */
  void filterResult(FilterResult result, OutputStream out) {
    ObjectNode answer = mapper.createObjectNode();
    switch (result.passed()) {
      case CandidateNodes.NodeList list -> answer.set("Nodes", list.list());
      case CandidateNodes.Names names -> {
        answer.putNull("Nodes");
        names.names().forEach(answer.putArray("NodeNames")::add);
      }
    }
    if (!answer.has("NodeNames")) {
      answer.putNull("NodeNames");
    }
    ObjectNode failed = answer.putObject("FailedNodes");
    result.failed().forEach(failed::put);
    answer.putObject("FailedAndUnresolvableNodes");
    answer.put("Error", "");
    write(answer, out);
  }

  private void write(JsonNode node, OutputStream out) {
    try {
      mapper.writeValue(out, node);
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory cannot fail", e);
    }
  }
}

package io.crigate.interlink.plugin;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.PluginApi;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.interlink.wire.WireJson;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;

/**
 * The plugin API on HTTP, accepting every shape interLink has sent: {@code /create} with one
 * RetrievedPodData (0.5+) or a list (0.4), {@code /status} and {@code /getLogs} as GET with a body or
 * POST, snake_case or Go field names, and {@code GET /status} with {@code []} as the ping.
 */
public final class PluginRoutes {

  private PluginRoutes() {}

  public static void install(JavalinConfig config, PluginApi plugin) {
    HttpServers.anyMethod(config, "/create", ctx -> create(ctx, plugin));
    HttpServers.anyMethod(config, "/delete", ctx -> ctx.result(plugin.delete(podOf(WireJson.parse(ctx.body()), "body"))));
    HttpServers.anyMethod(config, "/status", ctx -> status(ctx, plugin));
    HttpServers.anyMethod(config, "/getLogs", ctx -> logs(ctx, plugin));
  }

  private static void create(Context ctx, PluginApi plugin) {
    JsonNode body = WireJson.parse(ctx.body());
    if (body.isArray()) {
      List<CreateStruct> answers = new ArrayList<>();
      for (int i = 0; i < body.size(); i++) {
        answers.add(plugin.create(retrieved(body.get(i), "[%d]".formatted(i))));
      }
      HttpServers.json(ctx, answers);
    } else {
      HttpServers.json(ctx, plugin.create(retrieved(body, "body")));
    }
  }

  private static RetrievedPodData retrieved(JsonNode node, String where) {
    if (!node.isObject() || !node.has("pod")) {
      throw new BadRequest(where + ".pod", "is required (a RetrievedPodData object: {\"pod\": v1.Pod, \"container\": [...]})");
    }
    return WireJson.bind(node, RetrievedPodData.class, where);
  }

  private static void status(Context ctx, PluginApi plugin) {
    JsonNode body = WireJson.parse(ctx.body());
    if (body.isArray() && body.isEmpty()) {
      HttpServers.json(ctx, plugin.ping());
      return;
    }
    ArrayNode pods = body.isArray() ? (ArrayNode) body : WireJson.mapper().createArrayNode().add(body);
    List<Pod> list = new ArrayList<>();
    for (int i = 0; i < pods.size(); i++) {
      list.add(podOf(pods.get(i), "[%d]".formatted(i)));
    }
    HttpServers.json(ctx, plugin.status(list));
  }

  private static void logs(Context ctx, PluginApi plugin) throws Exception {
    LogRequest request = WireJson.bind(WireJson.parse(ctx.body()), LogRequest.class, "body").validated();
    ctx.contentType("text/plain; charset=utf-8");
    OutputStream out = ctx.res().getOutputStream();
    plugin.logs(request, out);
    out.flush();
  }

  /**
   * A v1.Pod, or the PodStatus shape interLink's docs describe for {@code /delete}
   * ({@code {"name", "UID", "namespace"}}), or a {@code {"pod": ...}} wrapper.
   */
  static Pod podOf(JsonNode node, String where) {
    if (node.has("pod") && node.get("pod").isObject()) {
      return podOf(node.get("pod"), where + ".pod");
    }
    if (!node.has("metadata") && (node.has("UID") || node.has("uid"))) {
      JsonNode uid = node.has("UID") ? node.get("UID") : node.get("uid");
      return new PodBuilder().withMetadata(new ObjectMetaBuilder().withUid(uid.asText())
          .withName(node.path("name").asText(null)).withNamespace(node.path("namespace").asText(null)).build()).build();
    }
    return WireJson.pod(node, where);
  }

}

package io.crigate.interlink.api;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.PluginApi;
import io.crigate.interlink.wire.PodCreateRequests;
import io.crigate.interlink.wire.WireJson;
import io.fabric8.kubernetes.api.model.Pod;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The interLink API the virtual kubelet calls (hop 1 of specs/interlink-wire.md), forwarding to one
 * plugin: POST /create with a PodCreateRequests, DELETE /delete with the v1.Pod, GET /status with
 * a list of pods, GET /getLogs with a LogStruct, POST /pinglink. As interLink's own mux, any method
 * reaches each handler.
 */
public final class ApiRoutes {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?");
  private static final Pattern UUID = Pattern.compile("[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");

  private ApiRoutes() {}

  public static void install(JavalinConfig config, PluginApi plugin) {
    HttpServers.anyMethod(config, "/create", ctx -> create(ctx, plugin));
    HttpServers.anyMethod(config, "/delete", ctx -> ctx.result(plugin.delete(WireJson.pod(WireJson.parse(ctx.body()), "body"))));
    HttpServers.anyMethod(config, "/status", ctx -> status(ctx, plugin));
    HttpServers.anyMethod(config, "/getLogs", ctx -> logs(ctx, plugin));
    HttpServers.anyMethod(config, "/pinglink", ctx -> HttpServers.json(ctx, plugin.ping()));
    // the VK's cache refresh: this layer keeps no cache of its own, so there is nothing to update
    HttpServers.anyMethod(config, "/updateCache", ctx -> ctx.result("Updated cache"));
  }

  private static void create(Context ctx, PluginApi plugin) {
    JsonNode body = WireJson.parse(ctx.body());
    if (!body.isObject() || !body.path("pod").isObject()) {
      throw new BadRequest("body.pod", "is required (a PodCreateRequests object: {\"pod\": v1.Pod, \"configmaps\": [...]})");
    }
    PodCreateRequests request = WireJson.bind(body, PodCreateRequests.class, "body");
    WireJson.pod(body.get("pod"), "body.pod");
    HttpServers.json(ctx, plugin.create(PodData.retrieved(request)));
  }

  private static void status(Context ctx, PluginApi plugin) {
    JsonNode body = WireJson.parse(ctx.body());
    if (!body.isArray()) {
      throw new BadRequest("body", "a JSON array of v1.Pod is required");
    }
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < body.size(); i++) {
      pods.add(WireJson.pod(body.get(i), "[%d]".formatted(i)));
    }
    HttpServers.json(ctx, pods.isEmpty() ? List.of() : plugin.status(pods));
  }

  private static void logs(Context ctx, PluginApi plugin) throws Exception {
    LogRequest request = WireJson.bind(WireJson.parse(ctx.body()), LogRequest.class, "body");
    checkAsInterLinkDoes(request);
    ctx.contentType("text/plain; charset=utf-8");
    OutputStream out = ctx.res().getOutputStream();
    plugin.logs(request, out);
    out.flush();
  }

  /** interLink answers 400 itself for these before a plugin sees the request; so does this layer. */
  static void checkAsInterLinkDoes(LogRequest request) {
    if (request.namespace() == null || !DNS_LABEL.matcher(request.namespace()).matches()) {
      throw new BadRequest("Namespace", "'%s' is not a DNS label".formatted(request.namespace()));
    }
    if (request.podUid() == null || !UUID.matcher(request.podUid()).matches()) {
      throw new BadRequest("PodUID", "'%s' is not a lowercase UUID".formatted(request.podUid()));
    }
    if (request.containerName() == null || !DNS_LABEL.matcher(request.containerName()).matches()) {
      throw new BadRequest("ContainerName", "'%s' is not a DNS label".formatted(request.containerName()));
    }
    var opts = request.optsOrDefault();
    if (opts.tail() > 0 && opts.bytes() > 0) {
      throw new BadRequest("Opts", "Tail and Bytes cannot both be set");
    }
    if (opts.sinceSeconds() > 0 && opts.hasSinceTime()) {
      throw new BadRequest("Opts", "SinceSeconds and SinceTime cannot both be set");
    }
    request.validated();
  }


}

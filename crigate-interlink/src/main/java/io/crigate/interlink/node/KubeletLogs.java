package io.crigate.interlink.node;

import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.LogOptions;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.NotFound;
import io.fabric8.kubernetes.api.model.Pod;
import io.javalin.config.JavalinConfig;
import io.javalin.http.Context;
import io.javalin.http.HandlerType;
import java.io.OutputStream;
import java.util.function.BiFunction;

/**
 * The kubelet API path {@code kubectl logs} reaches through the API server:
 * {@code GET /containerLogs/{namespace}/{pod}/{container}?follow=&tailLines=&limitBytes=&timestamps=&sinceSeconds=},
 * answered by streaming the interLink API's /getLogs.
 */
final class KubeletLogs {

  private KubeletLogs() {}

  static void install(JavalinConfig config, ApiClient api, BiFunction<String, String, Pod> pods) {
    config.routes.addHttpHandler(HandlerType.GET, "/containerLogs/{namespace}/{pod}/{container}",
        ctx -> logs(ctx, api, pods));
    config.routes.addHttpHandler(HandlerType.GET, "/healthz", ctx -> ctx.result("ok"));
  }

  private static void logs(Context ctx, ApiClient api, BiFunction<String, String, Pod> pods) throws Exception {
    String namespace = ctx.pathParam("namespace");
    String name = ctx.pathParam("pod");
    Pod pod = pods.apply(namespace, name);
    if (pod == null) {
      throw new NotFound("pod %s/%s is not on this node".formatted(namespace, name));
    }
    if (ctx.queryParam("previous") != null && Boolean.parseBoolean(ctx.queryParam("previous"))) {
      throw new BadRequest("previous", "containers are never restarted on this node, so there is no previous log");
    }
    LogOptions options = new LogOptions(intParam(ctx, "tailLines"), intParam(ctx, "limitBytes"),
        Boolean.parseBoolean(ctx.queryParam("timestamps")), Boolean.parseBoolean(ctx.queryParam("follow")), false,
        intParam(ctx, "sinceSeconds"), ctx.queryParam("sinceTime"));
    LogRequest request = new LogRequest(namespace, pod.getMetadata().getUid(), name, ctx.pathParam("container"), options)
        .validated();
    ctx.contentType("text/plain; charset=utf-8");
    OutputStream out = ctx.res().getOutputStream();
    api.logs(request, out);
    out.flush();
  }

  private static int intParam(Context ctx, String name) {
    String value = ctx.queryParam(name);
    if (value == null || value.isEmpty()) {
      return 0;
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new BadRequest(name, "'%s' is not a number".formatted(value));
    }
  }
}

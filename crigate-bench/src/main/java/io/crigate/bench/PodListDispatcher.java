package io.crigate.bench;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The list of all pods from pre-serialised JSON, paged with {@code limit} and {@code continue} as
 * the API server pages it; every other request (Nodes, NodeImageLayers, watches, creates) goes to
 * the CRUD dispatcher. The CRUD dispatcher parses every stored object on each list and answers it
 * in one body on its event loop, and scans its whole store on each create: at 150,000 pods that is
 * minutes per list (docs/benchmarks.md has the numbers).
 */
final class PodListDispatcher extends Dispatcher {

  private static final String PODS = "/api/v1/pods";

  private final KubernetesCrudDispatcher crud;
  private final List<String> pods = new ArrayList<>();
  private long resourceVersion;

  PodListDispatcher(KubernetesCrudDispatcher crud) {
    this.crud = crud;
  }

  /** Adds one pod's JSON, which must already carry its metadata.resourceVersion. */
  void add(String podJson) {
    pods.add(podJson);
    resourceVersion = crud.requestResourceVersion();
  }

  int size() {
    return pods.size();
  }

  @Override
  public MockResponse dispatch(RecordedRequest request) {
    String path = request.getPath();
    int query = path.indexOf('?');
    Map<String, String> params = params(query < 0 ? "" : path.substring(query + 1));
    if (!"GET".equals(request.getMethod()) || !PODS.equals(query < 0 ? path : path.substring(0, query))
        || "true".equals(params.get("watch"))) {
      return crud.dispatch(request);
    }
    int from = params.containsKey("continue") ? Integer.parseInt(params.get("continue")) : 0;
    int to = params.containsKey("limit") ? Math.min(pods.size(), from + Integer.parseInt(params.get("limit"))) : pods.size();
    StringBuilder body = new StringBuilder(64 + (to - from) * (pods.isEmpty() ? 0 : pods.getFirst().length() + 1));
    body.append("{\"apiVersion\":\"v1\",\"kind\":\"PodList\",\"metadata\":{\"resourceVersion\":\"").append(resourceVersion)
        .append('"');
    if (to < pods.size()) {
      body.append(",\"continue\":\"").append(to).append('"');
    }
    body.append("},\"items\":[");
    for (int i = from; i < to; i++) {
      body.append(i > from ? "," : "").append(pods.get(i));
    }
    return new MockResponse().setResponseCode(200).setHeader("Content-Type", "application/json")
        .setBody(body.append("]}").toString());
  }

  private static Map<String, String> params(String query) {
    Map<String, String> params = new HashMap<>();
    for (String pair : query.split("&")) {
      int eq = pair.indexOf('=');
      if (eq > 0) {
        params.put(pair.substring(0, eq), URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8));
      }
    }
    return params;
  }
}

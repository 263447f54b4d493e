package io.crigate.interlink.api;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.interlink.http.JsonHttpClient;
import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.interlink.wire.PluginApi;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.interlink.wire.WireJson;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * Any interLink plugin over HTTP, spoken to as interLink's API server does (hop 2 of
 * specs/interlink-wire.md): POST /create with one RetrievedPodData, POST /delete with the v1.Pod,
 * GET /status and GET /getLogs with a JSON body, {@code GET /status []} as the ping.
 */
public final class PluginClient implements PluginApi, AutoCloseable {

  private final JsonHttpClient http;

  /**
   * @param url {@code http(s)://host:port} or {@code unix:///path/to.sock}
   * @param authorization the Authorization header per call, for crigate plugins that require a
   *     token; null for none, as interLink sends none to its plugins
   */
  public PluginClient(String url, Supplier<String> authorization) {
    this.http = new JsonHttpClient(url, authorization);
  }

  @Override
  public CreateStruct create(RetrievedPodData pod) {
    return http.call("POST", "/create", WireJson.write(pod), new TypeReference<CreateStruct>() {});
  }

  @Override
  public String delete(Pod pod) {
    return http.send("POST", "/delete", WireJson.write(pod));
  }

  @Override
  public List<PodStatusReport> status(List<Pod> pods) {
    return http.call("GET", "/status", WireJson.write(pods), new TypeReference<List<PodStatusReport>>() {});
  }

  @Override
  public void logs(LogRequest request, OutputStream out) throws IOException {
    http.stream("GET", "/getLogs", WireJson.write(request), out);
  }

  /** A plugin's ping may be a PingResponse or any text; text becomes the status. */
  @Override
  public PingResponse ping() {
    return PingResponse.parse(http.send("GET", "/status", "[]"));
  }


  @Override
  public void close() {
    http.close();
  }
}

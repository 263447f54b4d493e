package io.crigate.interlink.node;

import com.fasterxml.jackson.core.type.TypeReference;
import io.crigate.interlink.http.JsonHttpClient;
import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.interlink.wire.PodCreateRequests;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.interlink.wire.WireJson;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.function.Supplier;

/**
 * The interLink API as a virtual kubelet calls it (hop 1 of specs/interlink-wire.md): POST /create
 * with one PodCreateRequests, DELETE /delete with the pod, GET /status with a list, GET /getLogs
 * with a LogStruct, POST /pinglink. Works against crigate's API layer and interLink's own.
 */
public final class ApiClient implements AutoCloseable {

  private final JsonHttpClient http;

  public ApiClient(String url, Supplier<String> authorization) {
    this.http = new JsonHttpClient(url, authorization);
  }

  CreateStruct create(PodCreateRequests request) {
    return http.call("POST", "/create", WireJson.write(request), new TypeReference<CreateStruct>() {});
  }

  void delete(Pod pod) {
    http.send("DELETE", "/delete", WireJson.write(pod));
  }

  List<PodStatusReport> status(List<Pod> pods) {
    return http.call("GET", "/status", WireJson.write(pods), new TypeReference<List<PodStatusReport>>() {});
  }

  void logs(LogRequest request, OutputStream out) throws IOException {
    http.stream("GET", "/getLogs", WireJson.write(request), out);
  }

  PingResponse ping() {
    return PingResponse.parse(http.send("POST", "/pinglink", null));
  }


  @Override
  public void close() {
    http.close();
  }
}

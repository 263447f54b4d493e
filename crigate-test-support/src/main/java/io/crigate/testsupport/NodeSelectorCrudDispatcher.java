package io.crigate.testsupport;

import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import io.fabric8.mockwebserver.dsl.HttpMethod;
import io.fabric8.mockwebserver.http.Dispatcher;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.internal.MockDispatcher;
import io.fabric8.mockwebserver.internal.SimpleRequest;
import java.net.URLDecoder;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * fabric8's CRUD mock API server for code that selects pods by {@code spec.nodeName}, as a kubelet
 * does. The CRUD dispatcher indexes objects by name, namespace and labels only, so it would answer
 * such a list or watch with nothing; this one records every query it receives (so a test can check
 * the selector was sent) and then answers it without the {@code spec.nodeName} term, leaving the
 * selection to the client's own guard.
 */
public final class NodeSelectorCrudDispatcher extends KubernetesCrudDispatcher {

  private static final Pattern FIELD_SELECTOR = Pattern.compile("([?&])fieldSelector=([^&]*)");

  private final List<String> gets = new CopyOnWriteArrayList<>();

  /**
   * A started mock server on a free loopback port answering through this dispatcher, after the
   * expectations set with {@code server.expect()} (as fabric8's mixed mode does); destroy it after use.
   */
  public KubernetesMockServer start() {
    Map<ServerRequest, Queue<ServerResponse>> expected = new HashMap<>();
    MockDispatcher expectations = new MockDispatcher(expected);
    Dispatcher mixed = new Dispatcher() {
      @Override
      public MockResponse dispatch(RecordedRequest request) {
        Queue<ServerResponse> answers = expected.get(new SimpleRequest(HttpMethod.valueOf(request.getMethod()), request.getPath()));
        return answers != null && !answers.isEmpty() ? expectations.dispatch(request) : NodeSelectorCrudDispatcher.this.dispatch(request);
      }
    };
    KubernetesMockServer server = new KubernetesMockServer(new Context(), new MockWebServer(), expected, mixed, false);
    server.init();
    return server;
  }

  /** Every GET path (lists, watches and single objects) as received, query included, URL-decoded. */
  public List<String> gets() {
    return List.copyOf(gets);
  }

  @Override
  public MockResponse handleGet(String path) {
    gets.add(URLDecoder.decode(path, StandardCharsets.UTF_8));
    return super.handleGet(withoutNodeName(path));
  }

  static String withoutNodeName(String path) {
    Matcher selector = FIELD_SELECTOR.matcher(path);
    if (!selector.find()) {
      return path;
    }
    List<String> kept = new ArrayList<>(Arrays.asList(URLDecoder.decode(selector.group(2), StandardCharsets.UTF_8).split(",")));
    kept.removeIf(term -> term.startsWith("spec.nodeName="));
    String replacement = kept.isEmpty() ? selector.group(1)
        : selector.group(1) + "fieldSelector=" + URLEncoder.encode(String.join(",", kept), StandardCharsets.UTF_8);
    String rewritten = path.substring(0, selector.start()) + replacement + path.substring(selector.end());
    return rewritten.replace("?&", "?").replace("&&", "&").replaceAll("[?&]$", "");
  }
}

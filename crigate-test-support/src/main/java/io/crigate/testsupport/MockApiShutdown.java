package io.crigate.testsupport;

import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;

/** Ends a test that watched fabric8's CRUD mock API server. */
public final class MockApiShutdown {

  private MockApiShutdown() {}

  /**
   * Stops {@code server}, then closes what watched it, in order. The other order hangs at random:
   * when a client closes a watch, the mock (7.8 to 8.0) queues its half of the close on the watch's
   * send executor and then, on its event loop, waits for that executor, whose close in turn waits
   * for the event loop; the server's shutdown gives up after 10 s ("Unable to close MockWebServer",
   * 11 of 60 runs of the scheduler's InformerHandlersTest). A watch the server ends itself never
   * takes that path. The mock extension's own shutdown, if one runs later, finds the server stopped.
   */
  public static void stopServerThenClose(KubernetesMockServer server, AutoCloseable... watchers) throws Exception {
    server.destroy();
    for (AutoCloseable watcher : watchers) {
      if (watcher != null) {
        watcher.close();
      }
    }
  }
}

package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;

import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.net.ConnectException;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** An informer started for an index returns only when its handler has applied the whole initial list. */
@EnableKubernetesMockClient(crud = true)
class InformerHandlersTest {

  static final int NODES = 25;

  KubernetesClient client;
  KubernetesMockServer server;
  final Set<String> applied = ConcurrentHashMap.newKeySet();
  SharedIndexInformer<Node> informer;

  @BeforeEach
  void nodes() {
    for (int n = 0; n < NODES; n++) {
      client.nodes().resource(new NodeBuilder().withNewMetadata().withName("node-" + n).endMetadata().build()).create();
    }
  }

  @AfterEach
  void stop() throws Exception {
    MockApiShutdown.stopServerThenClose(server, informer);
  }

  void run(Consumer<Node> put) {
    informer = InformerHandlers.runApplied(client.nodes().runnableInformer(0), put, node -> applied.remove(node.getMetadata().getName()));
  }

  @Test
  void aSlowHandlerHasAppliedEveryListedObjectWhenTheInformerReturns() {
    // 25 objects at 40 ms: the list and the watch are in long before the handler is done
    run(node -> {
      sleep(40);
      applied.add(node.getMetadata().getName());
    });
    assertThat(applied).hasSize(NODES);
  }

  @Test
  void anObjectTheHandlerCannotReadDoesNotKeepTheInformerFromReturning() {
    assertTimeoutPreemptively(Duration.ofSeconds(60), () -> run(node -> {
      if (node.getMetadata().getName().equals("node-3")) {
        throw new IllegalArgumentException("unreadable");
      }
      applied.add(node.getMetadata().getName());
    }));
    assertThat(applied).hasSize(NODES - 1).doesNotContain("node-3");
  }

  /**
   * A watch that drops is reconnected inside fabric8 and never reaches the handler; a list that
   * fails after the first sync (a relist while the API server is away) does.
   */
  @Test
  void aListFailingAfterTheFirstSyncIsRetriedWithOneLineNamingTheCause() throws Exception {
    ListAppender<ILoggingEvent> logs = new ListAppender<>();
    logs.start();
    Logger log = (Logger) LoggerFactory.getLogger(InformerHandlers.class);
    log.addAppender(logs);
    try {
      ExceptionHandler handler = InformerHandlers.retryNamingTheCause("Node");
      var refused = new KubernetesClientException("Operation: [list] failed",
          new CompletionException(new ConnectException("Connection refused: /10.0.0.1:6443")));

      assertThat(handler.retryAfterException(true, refused)).isTrue();
      assertThat(logs.list).singleElement().satisfies(retry -> {
        assertThat(retry.getLevel()).isEqualTo(Level.WARN);
        assertThat(retry.getFormattedMessage()).isEqualTo("reading Node from the API server failed "
            + "(java.net.ConnectException: Connection refused: /10.0.0.1:6443); retrying");
        assertThat(retry.getThrowableProxy()).isNull(); // no stack trace
      });
      // before the first sync run() throws and the command ends; a refused watch is final, as in fabric8
      assertThat(handler.retryAfterException(false, refused)).isFalse();
      assertThat(handler.retryAfterException(true, new WatcherException("forbidden"))).isFalse();
      assertThat(logs.list).hasSize(1);
    } finally {
      log.detachAppender(logs);
    }
  }

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

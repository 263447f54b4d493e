package io.crigate.scheduler.extender;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import io.crigate.testsupport.MockApiShutdown;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

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

  static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}

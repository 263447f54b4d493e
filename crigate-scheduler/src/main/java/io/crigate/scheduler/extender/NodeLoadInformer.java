package io.crigate.scheduler.extender;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.informers.cache.ReducedStateItemStore;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Each node's CPU load as kube-scheduler's resource scores see it, kept current by informers over
 * Nodes (allocatable CPU) and Pods (the requests and the number of the pods bound to each node). kube-scheduler
 * sends the extender only the pod being scheduled and the candidates' names or Node objects, never
 * what is already requested on them, so the extender has to count it itself.
 *
 * <p>A pod counts from the moment it is bound ({@code spec.nodeName} set) until it succeeds, fails
 * or is deleted, which is when kube-scheduler stops counting it too.
 */
public final class NodeLoadInformer implements AutoCloseable {

  private record Bound(String node, long cpuMillis) {}

  /**
   * Objects per page of the initial lists and relists, as client-go's reflector pages: a list of
   * every pod in one answer is held whole while it is decoded (gigabytes at 150,000 pods).
   */
  static final long LIST_PAGE = 500;

  private final NodeLoads loads;
  /** What each counted pod added to its node, to take back when it changes or goes. */
  private final Map<String, Bound> bound = new ConcurrentHashMap<>();
  /** One instance per node name: each event carries its own copy, and 150,000 pods name 5,000 nodes. */
  private final Map<String, String> nodeNames = new ConcurrentHashMap<>();
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Pod> pods;

  /** Lists, then watches, every node and every pod into {@code loads}; returns once both lists are counted. */
  public NodeLoadInformer(KubernetesClient client, NodeLoads loads) {
    this.loads = loads;
    // The informers' own stores keep only what relisting needs to tell a change (name and resource
    // version): a full Pod is kilobytes (managed fields, status), a full Node more (its 50 largest
    // images), and a cluster of 5,000 nodes runs hundreds of thousands of pods. The handlers get
    // every full object from the list and the watch, and keep only the numbers in loads and bound.
    this.nodes = InformerHandlers.runApplied(client.nodes().withLimit(LIST_PAGE).runnableInformer(0)
        .itemStore(new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE, Node.class,
            client.getKubernetesSerialization())),
        this::putNode, node -> loads.allocatable(node.getMetadata().getName(), 0));
    this.pods = InformerHandlers.runApplied(client.pods().inAnyNamespace().withLimit(LIST_PAGE).runnableInformer(0)
        .itemStore(new ReducedStateItemStore<>(ReducedStateItemStore.NAME_KEY_STATE, Pod.class,
            client.getKubernetesSerialization())),
        this::putPod, this::removePod);
  }

  private void putNode(Node node) {
    var status = node.getStatus();
    loads.allocatable(node.getMetadata().getName(), status == null ? 0 : PodCpu.millis(status.getAllocatable()));
  }

  private void putPod(Pod pod) {
    String node = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    boolean bound = node != null && !node.isEmpty();
    boolean ended = "Succeeded".equals(phase) || "Failed".equals(phase);
    count(key(pod), bound && !ended ? new Bound(nodeNames.computeIfAbsent(node, n -> n), PodCpu.millis(pod.getSpec())) : null);
    if (bound || ended) {
      loads.retract(key(pod));
    }
  }

  private void removePod(Pod pod) {
    count(key(pod), null);
    loads.retract(key(pod));
  }

  private void count(String pod, Bound now) {
    Bound before = now == null ? bound.remove(pod) : bound.put(pod, now);
    if (before != null) {
      loads.addRequested(before.node(), -before.cpuMillis(), -1);
    }
    if (now != null) {
      loads.addRequested(now.node(), now.cpuMillis(), 1);
    }
  }

  private static String key(Pod pod) {
    return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }

  @Override
  public void close() {
    pods.close();
    nodes.close();
  }
}

package io.crigate.interlink.node;

import io.crigate.interlink.wire.PingResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * @param nodeName the Node object's name; pods with this spec.nodeName are ours
 * @param capacity cpu/memory/pods to advertise; empty: take them from the plugin's ping
 * @param taints the node's taints, so only pods that tolerate them land there (plus the ping's)
 * @param internalIp the address the API server reaches the kubelet API (logs) at
 * @param kubeletPort the port of the kubelet API this node serves
 * @param statusInterval how often one /status call refreshes every pod of the node
 * @param leaseInterval how often the node's Lease is renewed and the plugin pinged
 * @param podWorkers how many pods' events are handled at once (each pod's in order)
 */
public record NodeSettings(String nodeName, Map<String, String> capacity, List<PingResponse.Taint> taints,
    String internalIp, int kubeletPort, Duration statusInterval, Duration leaseInterval, int podWorkers) {

  /** Enough to keep a plugin's submissions overlapping, few enough not to swamp the API server. */
  public static final int DEFAULT_POD_WORKERS = 8;

  /** The taint interLink's virtual kubelet sets: pods must tolerate it to land on the node. */
  public static final PingResponse.Taint VIRTUAL_NODE_TAINT =
      new PingResponse.Taint("virtual-node.interlink/no-schedule", "true", "NoSchedule");

  public static NodeSettings defaults(String nodeName) {
    return new NodeSettings(nodeName, Map.of(), List.of(VIRTUAL_NODE_TAINT), "127.0.0.1", 10250,
        Duration.ofSeconds(5), Duration.ofSeconds(10), DEFAULT_POD_WORKERS);
  }

  public NodeSettings withIntervals(Duration status, Duration lease) {
    return new NodeSettings(nodeName, capacity, taints, internalIp, kubeletPort, status, lease, podWorkers);
  }

  public NodeSettings withKubeletPort(int port) {
    return new NodeSettings(nodeName, capacity, taints, internalIp, port, statusInterval, leaseInterval, podWorkers);
  }

  public NodeSettings withPodWorkers(int workers) {
    return new NodeSettings(nodeName, capacity, taints, internalIp, kubeletPort, statusInterval, leaseInterval, workers);
  }
}

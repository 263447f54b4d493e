package io.crigate.interlink.node;

import io.crigate.interlink.wire.PingResponse;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.NodeStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Node object and its Lease in kube-node-lease. Ready follows the plugin's ping: a plugin
 * that does not answer makes the node NotReady (and the node controller stops sending pods).
 */
final class NodeRegistration {

  static final String LEASE_NAMESPACE = "kube-node-lease";
  private static final DateTimeFormatter MICRO_TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSSXXX");

  private final KubernetesClient kube;
  private final NodeSettings settings;

  NodeRegistration(KubernetesClient kube, NodeSettings settings) {
    this.kube = kube;
    this.settings = settings;
  }

  /** Creates the Node, or updates the one a previous run left; returns what the API server holds. */
  Node register(PingResponse ping, Instant now) {
    Node node = new NodeBuilder().withNewMetadata().withName(settings.nodeName())
        // beta.kubernetes.io/os as well: Virtual Kubelet set it, and interLink's example pods select on it
        .withLabels(Map.of("type", "virtual-kubelet", "kubernetes.io/role", "agent",
            "kubernetes.io/hostname", settings.nodeName(), "kubernetes.io/os", "linux", "beta.kubernetes.io/os", "linux"))
        .endMetadata()
        .withNewSpec().withTaints(taints(ping)).endSpec()
        .build();
    Node existing = kube.nodes().withName(settings.nodeName()).get();
    if (existing == null) {
      kube.nodes().resource(node).create();
    } else {
      kube.nodes().withName(settings.nodeName()).edit(n -> new NodeBuilder(n).editMetadata()
          .addToLabels(node.getMetadata().getLabels()).endMetadata().editOrNewSpec().withTaints(taints(ping)).endSpec().build());
    }
    return updateStatus(ping, now);
  }

  /** Capacity, Ready from the ping (null: the plugin did not answer), addresses and the kubelet port. */
  Node updateStatus(PingResponse ping, Instant now) {
    boolean ready = ping != null && "ok".equalsIgnoreCase(ping.status());
    String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
    Map<String, Quantity> capacity = capacity(ping);
    List<NodeCondition> conditions = List.of(
        new NodeConditionBuilder().withType("Ready").withStatus(ready ? "True" : "False")
            .withReason(ready ? "PluginReady" : "PluginUnreachable")
            .withMessage(ready ? "the interLink plugin answers its ping" : "the interLink plugin does not answer its ping")
            .withLastHeartbeatTime(time).withLastTransitionTime(time).build(),
        pressure("MemoryPressure", time), pressure("DiskPressure", time), pressure("PIDPressure", time),
        new NodeConditionBuilder().withType("NetworkUnavailable").withStatus("False").withReason("RouteCreated")
            .withLastHeartbeatTime(time).withLastTransitionTime(time).build());
    var status = new NodeStatusBuilder()
        .withCapacity(capacity).withAllocatable(capacity).withConditions(conditions)
        .addNewAddress().withType("InternalIP").withAddress(settings.internalIp()).endAddress()
        .addNewAddress().withType("Hostname").withAddress(settings.nodeName()).endAddress()
        .withNewDaemonEndpoints().withNewKubeletEndpoint().withPort(settings.kubeletPort()).endKubeletEndpoint()
        .endDaemonEndpoints()
        .withNewNodeInfo().withKubeletVersion("v1.36.0-crigate").withOperatingSystem("linux").withArchitecture("amd64")
        .withContainerRuntimeVersion("interlink://crigate").withKernelVersion("").withOsImage("").withMachineID("")
        .withSystemUUID("").withBootID("").withKubeProxyVersion("").endNodeInfo()
        .build();
    return kube.nodes().withName(settings.nodeName()).subresource("status")
        .patch(PatchContext.of(PatchType.JSON), StatusPatch.replace(status));
  }

  /** Renews (or creates) the node's Lease: the node controller's heartbeat. */
  void renewLease(Instant now) {
    String renew = ZonedDateTime.ofInstant(now, ZoneOffset.UTC).format(MICRO_TIME);
    Lease lease = new LeaseBuilder().withNewMetadata().withName(settings.nodeName()).withNamespace(LEASE_NAMESPACE)
        .endMetadata().withNewSpec().withHolderIdentity(settings.nodeName())
        .withLeaseDurationSeconds((int) Math.max(40, settings.leaseInterval().toSeconds() * 4))
        .withRenewTime(ZonedDateTime.ofInstant(now, ZoneOffset.UTC)).endSpec().build();
    var existing = kube.leases().inNamespace(LEASE_NAMESPACE).withName(settings.nodeName());
    if (existing.get() == null) {
      existing.create(lease);
    } else {
      existing.patch(PatchContext.of(PatchType.JSON_MERGE),
          "{\"spec\":{\"renewTime\":\"%s\",\"holderIdentity\":\"%s\"}}".formatted(renew, settings.nodeName()));
    }
  }

  private Map<String, Quantity> capacity(PingResponse ping) {
    Map<String, String> values = new LinkedHashMap<>(Map.of("cpu", "1", "memory", "1Gi", "pods", "110"));
    if (ping != null) {
      ping.capacity().forEach((k, v) -> {
        if (v != null && !v.isBlank()) {
          values.put(k, v);
        }
      });
    }
    values.putAll(settings.capacity());
    Map<String, Quantity> quantities = new LinkedHashMap<>();
    values.forEach((k, v) -> quantities.put(k, new Quantity(v)));
    return quantities;
  }

  private List<Taint> taints(PingResponse ping) {
    List<Taint> taints = new ArrayList<>();
    List<PingResponse.Taint> all = new ArrayList<>(settings.taints());
    if (ping != null && ping.taints() != null) {
      all.addAll(ping.taints());
    }
    for (PingResponse.Taint t : all) {
      if (taints.stream().noneMatch(x -> x.getKey().equals(t.key()) && x.getEffect().equals(t.effect()))) {
        taints.add(new TaintBuilder().withKey(t.key()).withValue(t.value()).withEffect(t.effect()).build());
      }
    }
    return taints;
  }

  private static NodeCondition pressure(String type, String time) {
    return new NodeConditionBuilder().withType(type).withStatus("False").withReason("KubeletHasSufficient" + type.replace("Pressure", ""))
        .withLastHeartbeatTime(time).withLastTransitionTime(time).build();
  }
}

package io.crigate.streaming;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.PortForwarder;
import java.util.Optional;
import java.util.Set;

/**
 * A PortForward a URL was issued for, kept until the client connects.
 *
 * @param ports the only ports the client may open; empty for any, since the kubelet passes none
 *     for SPDY clients, which name their ports per stream
 * @param forwarder joins one forwarded connection to the pod
 * @param metrics where each forwarded connection counts itself open and ended
 */
record ForwardRequest(String podSandboxId, Set<Integer> ports, PortForwarder forwarder, StreamingMetrics metrics)
    implements IssuedSession {

  static final String KIND = "portforward";

  static ForwardRequest of(PortForwardRequest request, PortForwarder forwarder, StreamingMetrics metrics) {
    return new ForwardRequest(request.getPodSandboxId(), Set.copyOf(request.getPortList()), forwarder, metrics);
  }

  @Override
  public String kind() {
    return KIND;
  }

  @Override
  public String what() {
    return "port forward to pod " + podSandboxId;
  }

  /** Why the client may not open {@code port}, if it may not. */
  Optional<String> refusal(int port) {
    if (!ports.isEmpty() && !ports.contains(port)) {
      return Optional.of("port %d was not among the ports PortForward was asked for (%s)".formatted(port, ports));
    }
    return Optional.empty();
  }
}

package io.crigate.core;

import io.crigate.api.cri.v1.*;

/**
 * Exec, Attach and PortForward. The owning backend runs the streaming server; its URL goes back to
 * the kubelet unchanged, so stream bytes never pass through crigate.
 */
final class StreamingUrls {

  private final Owners owners;

  StreamingUrls(Owners owners) {
    this.owners = owners;
  }

  ExecResponse exec(ExecRequest request) {
    String id = Require.id("container_id", request.getContainerId());
    Require.present(request.getCmdCount() > 0, "cmd");
    return owners.ofContainer(id).exec(request);
  }

  AttachResponse attach(AttachRequest request) {
    return owners.ofContainer(Require.id("container_id", request.getContainerId())).attach(request);
  }

  PortForwardResponse portForward(PortForwardRequest request) {
    return owners.ofSandbox(Require.id("pod_sandbox_id", request.getPodSandboxId())).portForward(request);
  }
}

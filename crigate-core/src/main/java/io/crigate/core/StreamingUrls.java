package io.crigate.core;

import io.crigate.api.cri.v1.*;
import java.util.concurrent.CompletionStage;

/**
 * Exec, Attach and PortForward. The owning backend runs the streaming server; its URL goes back to
 * the kubelet unchanged, so stream bytes never pass through crigate.
 */
final class StreamingUrls {

  private final Forwarder forwarder;

  StreamingUrls(Forwarder forwarder) {
    this.forwarder = forwarder;
  }

  CompletionStage<ExecResponse> exec(ExecRequest request) {
    String id = Require.id("container_id", request.getContainerId());
    Require.present(request.getCmdCount() > 0, "cmd");
    return forwarder.toContainer(id, BackendCall.EXEC, request);
  }

  CompletionStage<AttachResponse> attach(AttachRequest request) {
    return forwarder.toContainer(Require.id("container_id", request.getContainerId()), BackendCall.ATTACH, request);
  }

  CompletionStage<PortForwardResponse> portForward(PortForwardRequest request) {
    return forwarder.toSandbox(Require.id("pod_sandbox_id", request.getPodSandboxId()), BackendCall.PORT_FORWARD, request);
  }
}

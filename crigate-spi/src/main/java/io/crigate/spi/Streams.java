package io.crigate.spi;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.AttachResponse;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.api.cri.v1.ExecResponse;
import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.api.cri.v1.PortForwardResponse;

/**
 * crigate's own CRI streaming server, offered to backends that have none (a batch system). The
 * answer carries a single-use URL that expires; the session runs when the kubelet (or
 * {@code crigate ctl exec}) connects to it, by calling the given runtime.
 */
public interface Streams {

  /** No streaming server: every call is {@link CrigateException.Unimplemented}. */
  Streams NONE = new Streams() {
    @Override
    public ExecResponse exec(ExecRequest request, StreamingRuntime runtime) {
      throw new CrigateException.Unimplemented("Exec needs crigate's streaming server, which is not running here");
    }

    @Override
    public AttachResponse attach(AttachRequest request, StreamingRuntime runtime) {
      throw new CrigateException.Unimplemented("Attach needs crigate's streaming server, which is not running here");
    }

    @Override
    public PortForwardResponse portForward(PortForwardRequest request, PortForwarder forwarder) {
      throw new CrigateException.Unimplemented("PortForward needs crigate's streaming server, which is not running here");
    }
  };

  ExecResponse exec(ExecRequest request, StreamingRuntime runtime);

  AttachResponse attach(AttachRequest request, StreamingRuntime runtime);

  /** A URL on which each forwarded connection calls {@code forwarder}; the request's ports, when listed, are the only ones. */
  PortForwardResponse portForward(PortForwardRequest request, PortForwarder forwarder);
}

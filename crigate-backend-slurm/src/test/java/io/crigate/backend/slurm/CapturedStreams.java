package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.AttachResponse;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.api.cri.v1.ExecResponse;
import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.api.cri.v1.PortForwardResponse;
import io.crigate.spi.PortForwarder;
import io.crigate.spi.StreamingRuntime;
import io.crigate.spi.Streams;

/**
 * A streaming server that hands out no URL and keeps what would serve it, which the test drives
 * itself; the server's protocols are tested in crigate-streaming and crigate-it.
 */
final class CapturedStreams implements Streams {

  volatile StreamingRuntime runtime;
  volatile PortForwarder forwarder;

  @Override
  public ExecResponse exec(ExecRequest request, StreamingRuntime runtime) {
    this.runtime = runtime;
    return ExecResponse.newBuilder().setUrl("test://exec").build();
  }

  @Override
  public AttachResponse attach(AttachRequest request, StreamingRuntime runtime) {
    this.runtime = runtime;
    return AttachResponse.newBuilder().setUrl("test://attach").build();
  }

  @Override
  public PortForwardResponse portForward(PortForwardRequest request, PortForwarder forwarder) {
    this.forwarder = forwarder;
    return PortForwardResponse.newBuilder().setUrl("test://portforward").build();
  }
}

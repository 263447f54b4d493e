package io.crigate.spi;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.ExecRequest;

/**
 * What a backend without a streaming server of its own implements so that crigate's streaming
 * server can run Exec and Attach for it. Methods block until the session ends and are called on a
 * virtual thread, which is interrupted when the client goes away.
 */
public interface StreamingRuntime {

  /**
   * Runs the request's command in the container, wired to {@code io}.
   *
   * @return the command's exit code
   * @throws CrigateException when the command cannot be started; the client sees the message
   */
  int exec(ExecRequest request, StreamIo io);

  /**
   * Streams the container's output to {@code io} until the container ends or the client leaves.
   *
   * @throws CrigateException when the container cannot be followed; the client sees the message
   */
  void attach(AttachRequest request, StreamIo io);
}

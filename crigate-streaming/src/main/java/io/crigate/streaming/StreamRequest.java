package io.crigate.streaming;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.spi.StreamIo;
import io.crigate.spi.StreamingRuntime;
import java.util.function.ToIntFunction;

/**
 * A session a URL was issued for, kept until the client connects.
 *
 * @param kind the URL path segment: {@code exec} or {@code attach}
 * @param what for logs: the kind, the container and for exec the program, never its arguments
 *     (they may hold secrets)
 * @param session runs the session; the exit code the client is told
 * @param metrics where the session counts itself open and ended
 */
record StreamRequest(String kind, String what, boolean stdin, boolean stdout, boolean stderr, boolean tty,
    ToIntFunction<StreamIo> session, StreamingMetrics metrics) implements IssuedSession {

  static StreamRequest exec(ExecRequest request, StreamingRuntime runtime, StreamingMetrics metrics) {
    return new StreamRequest("exec", "exec of %s in container %s".formatted(request.getCmd(0), request.getContainerId()),
        request.getStdin(), request.getStdout(), request.getStderr(), request.getTty(), io -> runtime.exec(request, io),
        metrics);
  }

  static StreamRequest attach(AttachRequest request, StreamingRuntime runtime, StreamingMetrics metrics) {
    return new StreamRequest("attach", "attach to container " + request.getContainerId(), request.getStdin(),
        request.getStdout(), request.getStderr(), request.getTty(), io -> {
          runtime.attach(request, io);
          return 0;
        }, metrics);
  }

  int run(StreamIo io) {
    return session.applyAsInt(io);
  }
}

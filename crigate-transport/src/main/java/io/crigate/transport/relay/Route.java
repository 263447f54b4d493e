package io.crigate.transport.relay;

/**
 * Where a stream is relayed, and who watches it there.
 *
 * @param upstream the server that receives the stream unchanged
 * @param watch the call's own limit and what is told when it ends
 */
public record Route(Http2Upstream upstream, CallWatch watch) {

  /** A stream for a server that keeps its own limits and metrics (crigate's gRPC call server). */
  public static Route plain(Http2Upstream upstream) {
    return new Route(upstream, CallWatch.NONE);
  }
}

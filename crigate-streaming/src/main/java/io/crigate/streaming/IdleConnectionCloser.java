package io.crigate.streaming;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.timeout.IdleState;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Closes a connection that has passed no bytes either way for the idle timeout, as containerd's
 * streaming server does: the session's client goes away, so its runtime stops the command. Sits next
 * to the socket, under every codec, so the HTTP request, the upgrade and each frame all count.
 */
final class IdleConnectionCloser extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(IdleConnectionCloser.class);

  private final Duration timeout;
  private final StreamingMetrics metrics;

  private IdleConnectionCloser(Duration timeout, StreamingMetrics metrics) {
    this.timeout = timeout;
    this.metrics = metrics;
  }

  /** The pair that watches a connection: the timer, then this handler acting on it. */
  static ChannelHandler[] watching(Duration timeout, StreamingMetrics metrics) {
    return new ChannelHandler[] {
        new IdleStateHandler(0, 0, timeout.toNanos(), TimeUnit.NANOSECONDS), new IdleConnectionCloser(timeout, metrics)};
  }

  @Override
  public void userEventTriggered(ChannelHandlerContext ctx, Object event) throws Exception {
    if (event instanceof IdleStateEvent idle && idle.state() == IdleState.ALL_IDLE) {
      LOG.info("closing streaming connection from {}: nothing sent or received for {} (streaming.idleTimeout)",
          ctx.channel().remoteAddress(), timeout);
      metrics.idleClosed();
      ctx.close();
      return;
    }
    super.userEventTriggered(ctx, event);
  }
}

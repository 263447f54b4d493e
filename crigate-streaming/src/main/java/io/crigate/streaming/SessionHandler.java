package io.crigate.streaming;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both protocols' handlers share: one {@link Session} per connection, created when the
 * handler joins the pipeline, and told when the client goes away.
 */
abstract class SessionHandler extends ChannelInboundHandlerAdapter implements Outbound {

  private static final Logger LOG = LoggerFactory.getLogger(SessionHandler.class);

  final StreamRequest request;
  ChannelHandlerContext ctx;
  Session session;

  SessionHandler(StreamRequest request) {
    this.request = request;
  }

  /** How logs name the protocol, e.g. {@code SPDY/3.1 v4.channel.k8s.io}. */
  abstract String protocol();

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
    this.session = new Session(request, protocol(), this, on -> ctx.channel().config().setAutoRead(on));
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    session.clientGone();
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("{}: connection failed: {}", request.what(), cause.toString());
    ctx.close();
  }
}

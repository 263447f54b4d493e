package io.crigate.transport.relay;

import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The last handler of a relayed connection: an error no stream took (most often the peer resetting
 * the socket, as one-shot CRI clients do when they exit) closes the connection with one line, instead
 * of reaching the end of the pipeline, where Netty logs a warning with a stack trace.
 */
@ChannelHandler.Sharable
final class ConnectionErrors extends ChannelInboundHandlerAdapter {

  private static final Logger LOG = LoggerFactory.getLogger(ConnectionErrors.class);

  private final String side;

  /** @param side which connection this is, for the log line ("client", "upstream /run/…sock") */
  ConnectionErrors(String side) {
    this.side = side;
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    if (cause instanceof IOException) {
      // a reset or broken pipe is the peer going away; its streams have already ended or been reset
      LOG.debug("relay {} connection closed by the peer: {}", side, cause.getMessage());
    } else {
      LOG.warn("relay {} connection closed after an error: {}", side, cause.toString());
    }
    ctx.close();
  }
}

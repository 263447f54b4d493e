package io.crigate.streaming;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What both protocols' port-forward handlers share: the connection's forwarding threads and the
 * client's inputs, all ended when the client goes away, so no forward outlives its connection.
 */
abstract class ForwardHandler extends ChannelInboundHandlerAdapter implements ChannelSink {

  private static final Logger LOG = LoggerFactory.getLogger(ForwardHandler.class);

  final ForwardRequest request;
  ChannelHandlerContext ctx;
  private final Set<Thread> forwarding = ConcurrentHashMap.newKeySet();
  private final Set<ChannelInput> inputs = ConcurrentHashMap.newKeySet();

  ForwardHandler(ForwardRequest request) {
    this.request = request;
  }

  @Override
  public void handlerAdded(ChannelHandlerContext ctx) {
    this.ctx = ctx;
  }

  /** The client's side of one forwarded connection; reading pauses while it holds too much unread. */
  ChannelInput newInput() {
    ChannelInput input = new ChannelInput(on -> ctx.channel().config().setAutoRead(on));
    inputs.add(input);
    return input;
  }

  /** Ends an input whose forward never started. */
  void forget(ChannelInput input) {
    input.end();
    inputs.remove(input);
  }

  /** Forwards {@code port} between {@code input} and the given channels; {@code ended} runs after. */
  void forward(int port, ChannelInput input, int dataChannel, int errorChannel, Runnable ended) {
    Thread thread = ForwardedConnection.unstarted(request, port, input, new ChannelOutput(this, dataChannel),
        new ChannelOutput(this, errorChannel), () -> {
          inputs.remove(input);
          forwarding.remove(Thread.currentThread()); // ended runs on the forwarding thread itself
          ended.run();
        });
    forwarding.add(thread);
    thread.start();
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) {
    inputs.forEach(ChannelInput::end);
    forwarding.forEach(Thread::interrupt);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    LOG.debug("{}: connection failed: {}", request.what(), cause.toString());
    ctx.close();
  }
}

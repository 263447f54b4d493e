package io.crigate.streaming;

import io.netty.buffer.Unpooled;
import io.crigate.spi.config.PortNumber;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.websocketx.WebSocketFrameAggregator;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshaker;
import io.netty.handler.codec.http.websocketx.WebSocketServerHandshakerFactory;
import io.netty.handler.codec.spdy.SpdyFrameCodec;
import io.netty.handler.codec.spdy.SpdyVersion;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The first request on a connection: {@code /exec/<token>}, {@code /attach/<token>} or
 * {@code /portforward/<token>}, upgraded to SPDY/3.1 or WebSocket. The token is consumed before anything else, so a URL works exactly once.
 * After a successful upgrade this handler and the HTTP codec leave the pipeline.
 */
final class UpgradeHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

  static final String SPDY = "SPDY/3.1";
  static final String PROTOCOL_HEADER = "X-Stream-Protocol-Version";
  static final int MAX_WEBSOCKET_MESSAGE = 1 << 20;
  private static final Logger LOG = LoggerFactory.getLogger(UpgradeHandler.class);

  private final Tokens tokens;
  private final Duration streamCreationTimeout;

  UpgradeHandler(Tokens tokens, Duration streamCreationTimeout) {
    this.tokens = tokens;
    this.streamCreationTimeout = streamCreationTimeout;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    QueryStringDecoder uri = new QueryStringDecoder(request.uri());
    String[] path = uri.path().split("/", -1);
    Optional<IssuedSession> issued = path.length == 3 && path[0].isEmpty()
        ? tokens.consume(path[1], path[2]) : Optional.empty();
    if (issued.isEmpty()) {
      LOG.debug("refused {} from {}: unknown, used or expired URL", path.length > 1 ? path[1] : "?", ctx.channel().remoteAddress());
      refuse(ctx, HttpResponseStatus.NOT_FOUND, "no such stream: the URL is unknown, already used or expired\n");
      return;
    }
    String upgrade = request.headers().get(HttpHeaderNames.UPGRADE, "");
    switch (issued.get()) {
      case StreamRequest session when upgrade.equalsIgnoreCase(SPDY) ->
          upgradeToSpdy(ctx, request, session, SpdyStreams.PROTOCOL, false, () -> new SpdyStreams(session, streamCreationTimeout));
      case StreamRequest session when upgrade.equalsIgnoreCase("websocket") -> upgradeToWebSocket(ctx, request, session);
      case ForwardRequest forward when upgrade.equalsIgnoreCase(SPDY) ->
          upgradeToSpdy(ctx, request, forward, SpdyPortForward.PROTOCOL, true, () -> new SpdyPortForward(forward, streamCreationTimeout));
      case ForwardRequest forward when upgrade.equalsIgnoreCase("websocket") -> forwardOverWebSocket(ctx, request, uri, forward);
      case StreamRequest session -> refuse(ctx, HttpResponseStatus.BAD_REQUEST, ("this URL must be opened with "
          + "'Upgrade: %s' (%s: %s) or 'Upgrade: websocket' (Sec-WebSocket-Protocol: %s)\n").formatted(SPDY,
          PROTOCOL_HEADER, SpdyStreams.PROTOCOL, WebSocketStreams.V5));
      case ForwardRequest forward -> refuse(ctx, HttpResponseStatus.BAD_REQUEST, ("this URL must be opened with "
          + "'Upgrade: %s' (%s: %s) or 'Upgrade: websocket' (Sec-WebSocket-Protocol: %s, with port=N query "
          + "parameters)\n").formatted(SPDY, PROTOCOL_HEADER, SpdyPortForward.PROTOCOL, WebSocketPortForward.PROTOCOL));
    }
  }

  /**
   * As the kubelet's handshake: the client lists protocols in X-Stream-Protocol-Version and
   * {@code served} must be among them; for a port forward a client that lists none is served too,
   * as the kubelet serves clients older than the header.
   */
  private void upgradeToSpdy(ChannelHandlerContext ctx, FullHttpRequest request, IssuedSession session, String served,
      boolean noneOffered, Supplier<ChannelHandler> handler) {
    List<String> offered = request.headers().getAll(PROTOCOL_HEADER).stream()
        .flatMap(value -> Arrays.stream(value.split(","))).map(String::trim).filter(value -> !value.isEmpty()).toList();
    if (!offered.contains(served) && !(noneOffered && offered.isEmpty())) {
      refuse(ctx, HttpResponseStatus.FORBIDDEN, "unable to upgrade: unable to negotiate protocol: client supports %s, server accepts [%s]\n"
          .formatted(offered, served));
      return;
    }
    FullHttpResponse switching = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.SWITCHING_PROTOCOLS);
    switching.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE)
        .set(HttpHeaderNames.UPGRADE, SPDY);
    if (!offered.isEmpty()) {
      switching.headers().set(PROTOCOL_HEADER, served);
    }
    // The client sends SPDY frames only after the 101; still, read nothing until the codecs are swapped.
    ctx.channel().config().setAutoRead(false);
    ctx.writeAndFlush(switching).addListener((ChannelFutureListener) written -> {
      if (!written.isSuccess()) {
        ctx.close();
        return;
      }
      ChannelPipeline pipeline = ctx.pipeline();
      pipeline.remove(HttpObjectAggregator.class);
      pipeline.replace(HttpServerCodec.class, "spdy", new SpdyFrameCodec(SpdyVersion.SPDY_3_1));
      pipeline.replace(this, "session", handler.get());
      ctx.channel().config().setAutoRead(true);
      LOG.debug("{}: upgraded to {} ({})", session.what(), SPDY, served);
    });
  }

  private void upgradeToWebSocket(ChannelHandlerContext ctx, FullHttpRequest request, StreamRequest session) {
    handshake(ctx, request, WebSocketStreams.SUBPROTOCOLS, session, protocol -> {
      WebSocketStreams chosen = new WebSocketStreams(session, protocol);
      return new Started(chosen, chosen::start);
    });
  }

  /** The ports of a WebSocket port forward are its URL's {@code port} parameters, as the kubelet reads them. */
  private void forwardOverWebSocket(ChannelHandlerContext ctx, FullHttpRequest request, QueryStringDecoder uri,
      ForwardRequest forward) {
    List<String> values = uri.parameters().getOrDefault("port", List.of());
    List<Integer> ports = new ArrayList<>();
    for (String value : values) {
      OptionalInt port = PortNumber.parse(value, 1);
      if (port.isEmpty()) {
        refuse(ctx, HttpResponseStatus.BAD_REQUEST, "invalid port query parameter %s: not a TCP port (1-65535)\n".formatted(value));
        return;
      }
      ports.add(port.getAsInt());
    }
    if (ports.isEmpty()) {
      refuse(ctx, HttpResponseStatus.BAD_REQUEST, "a port forward over WebSocket needs at least one port=N query parameter\n");
      return;
    }
    handshake(ctx, request, WebSocketPortForward.PROTOCOL, forward, protocol -> {
      WebSocketPortForward handler = new WebSocketPortForward(forward, ports);
      return new Started(handler, handler::start);
    });
  }

  /** A session's handler, and what starts it once it is in the pipeline. */
  private record Started(ChannelHandler handler, Runnable start) {}

  private void handshake(ChannelHandlerContext ctx, FullHttpRequest request, String subprotocols, IssuedSession session,
      Function<String, Started> handlerFor) {
    String url = "ws://" + request.headers().get(HttpHeaderNames.HOST, "localhost") + request.uri();
    WebSocketServerHandshaker handshaker = new WebSocketServerHandshakerFactory(url, subprotocols,
        false, MAX_WEBSOCKET_MESSAGE).newHandshaker(request);
    if (handshaker == null) {
      WebSocketServerHandshakerFactory.sendUnsupportedVersionResponse(ctx.channel());
      return;
    }
    ctx.channel().config().setAutoRead(false);
    handshaker.handshake(ctx.channel(), request).addListener((ChannelFutureListener) done -> {
      if (!done.isSuccess()) {
        ctx.close();
        return;
      }
      String protocol = handshaker.selectedSubprotocol() == null ? "" : handshaker.selectedSubprotocol();
      Started started = handlerFor.apply(protocol);
      ctx.pipeline().addAfter(ctx.name(), "session", started.handler());
      ctx.pipeline().addAfter(ctx.name(), "aggregate", new WebSocketFrameAggregator(MAX_WEBSOCKET_MESSAGE));
      ctx.pipeline().remove(this);
      ctx.channel().config().setAutoRead(true);
      LOG.debug("{}: upgraded to WebSocket ({})", session.what(), protocol.isEmpty() ? "no subprotocol" : protocol);
      started.start().run();
    });
  }

  private static void refuse(ChannelHandlerContext ctx, HttpResponseStatus status, String message) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
        Unpooled.copiedBuffer(message, StandardCharsets.UTF_8));
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
        .setInt(HttpHeaderNames.CONTENT_LENGTH, response.content().readableBytes())
        .set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
    ctx.writeAndFlush(response).addListener(ChannelFutureListener.CLOSE);
  }
}

package io.crigate.scheduler.extender;

import io.crigate.spi.CrigateException;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.prometheus.metrics.core.datapoints.DistributionDataPoint;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Optional;
import java.util.concurrent.Executor;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One connection's requests to the extender. A verb runs on the connection's event loop unless the
 * pod names an image whose layers only a registry can tell: then the call (not yet begun, see
 * {@link LayerExtender.WouldWait}) runs again on a thread of {@code waiting}. Until it is answered
 * the connection reads nothing more, and requests it had already read (a client that pipelines)
 * wait their turn, so answers leave in the order of their requests. One handler per connection; its
 * state is touched on the connection's event loop only.
 */
final class ExtenderHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

  /**
   * What the port serves.
   *
   * @param metrics when present, verb latencies go into it, and {@code GET /metrics} and {@code GET /healthz} are served
   */
  record Routes(String urlPrefix, boolean filter, ExtenderVerbs verbs, Optional<VerbMetrics> metrics) {}

  private interface Verb {
    void run(ExtenderVerbs verbs, ByteBuf body, ExtenderVerbs.AnswerSink answer, boolean mayWait);
  }

  private static final Logger LOG = LoggerFactory.getLogger(ExtenderHttpHandler.class);
  private static final Verb PRIORITIZE = (verbs, body, answer, mayWait) -> verbs.prioritize(new ByteBufInputStream(body), answer, mayWait);
  // filter reads no image: it never waits
  private static final Verb FILTER = (verbs, body, answer, mayWait) -> verbs.filter(new ByteBufInputStream(body), answer);

  private final Routes routes;
  private final Executor waiting;
  /** Requests read while a call of this connection waits on a registry, in their order (retained). */
  private final ArrayDeque<FullHttpRequest> held = new ArrayDeque<>();
  private boolean callWaiting;

  ExtenderHttpHandler(Routes routes, Executor waiting) {
    this.routes = routes;
    this.waiting = waiting;
  }

  @Override
  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (callWaiting) {
      held.add(request.retain());
      return;
    }
    serve(ctx, request);
  }

  private void serve(ChannelHandlerContext ctx, FullHttpRequest request) {
    if (request.decoderResult().isFailure()) {
      refuseUndecodable(ctx, request.decoderResult().cause());
      return;
    }
    String path = new QueryStringDecoder(request.uri()).path();
    boolean post = request.method().equals(HttpMethod.POST);
    if (path.equals(routes.urlPrefix() + "/prioritize")) {
      call(ctx, request, post, PRIORITIZE, routes.metrics().map(m -> m.prioritize));
    } else if (routes.filter() && path.equals(routes.urlPrefix() + "/filter")) {
      call(ctx, request, post, FILTER, routes.metrics().map(m -> m.filter));
    } else if (routes.metrics().isPresent() && path.equals("/metrics")) {
      send(ctx, request, HttpResponseStatus.OK, PrometheusTextFormatWriter.CONTENT_TYPE,
          Unpooled.wrappedBuffer(routes.metrics().get().scrape()));
    } else if (routes.metrics().isPresent() && path.equals("/healthz")) {
      sendText(ctx, request, HttpResponseStatus.OK, "ok\n");
    } else {
      sendText(ctx, request, HttpResponseStatus.NOT_FOUND, "no such path: " + path + "\n");
    }
  }

  /** The codec could not read the request (a line or headers over its limits, or not HTTP): answered, then the connection closed. */
  private static void refuseUndecodable(ChannelHandlerContext ctx, Throwable cause) {
    HttpResponseStatus status = switch (cause) {
      case TooLongHttpLineException line -> HttpResponseStatus.REQUEST_URI_TOO_LONG;
      case TooLongHttpHeaderException headers -> HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE;
      default -> HttpResponseStatus.BAD_REQUEST;
    };
    FullHttpResponse refused = text(status, "malformed HTTP request: " + cause.getMessage() + "\n");
    HttpUtil.setKeepAlive(refused, false);
    ctx.writeAndFlush(refused).addListener(ChannelFutureListener.CLOSE);
  }

  private void call(ChannelHandlerContext ctx, FullHttpRequest request, boolean post, Verb verb,
      Optional<DistributionDataPoint> latency) {
    if (!post) {
      FullHttpResponse refused = text(HttpResponseStatus.METHOD_NOT_ALLOWED, request.method() + " is not served here: POST a JSON body\n");
      refused.headers().set(HttpHeaderNames.ALLOW, HttpMethod.POST.name());
      send(ctx, request, refused);
      return;
    }
    long start = System.nanoTime();
    if (!request.content().isReadable()) {
      answerBadRequest(ctx, request, "empty request body: expected a JSON object with Pod and Nodes or NodeNames");
      observe(latency, start);
      return;
    }
    if (!run(ctx, request, verb, false, start, latency)) {
      // the call did not begin: it runs again where it may wait, and the connection serves nothing else meanwhile
      FullHttpRequest kept = request.retainedDuplicate();
      callWaiting = true;
      ctx.channel().config().setAutoRead(false);
      waiting.execute(() -> {
        try {
          run(ctx, kept, verb, true, start, latency);
        } finally {
          kept.release();
          ctx.executor().execute(() -> resume(ctx));
        }
      });
    }
  }

  /** After a waiting call's answer: the requests held meanwhile, in order, until one waits again. */
  private void resume(ChannelHandlerContext ctx) {
    callWaiting = false;
    FullHttpRequest next;
    while (!callWaiting && (next = held.poll()) != null) {
      try {
        serve(ctx, next);
      } finally {
        next.release();
      }
    }
    if (!callWaiting) {
      ctx.channel().config().setAutoRead(true);
    }
  }

  @Override
  public void channelInactive(ChannelHandlerContext ctx) throws Exception {
    held.forEach(FullHttpRequest::release);
    held.clear();
    super.channelInactive(ctx);
  }

  /** Runs the verb and answers; false if it would have waited on a registry and {@code mayWait} is not set (nothing answered). */
  private boolean run(ChannelHandlerContext ctx, FullHttpRequest request, Verb verb, boolean mayWait, long start,
      Optional<DistributionDataPoint> latency) {
    try {
      verb.run(routes.verbs(), request.content().duplicate(), (bytes, offset, length) -> {
        ByteBuf answer = ctx.alloc().buffer(length).writeBytes(bytes, offset, length); // the bytes are the call's, reused after it
        send(ctx, request, HttpResponseStatus.OK, HttpHeaderValues.APPLICATION_JSON.toString(), answer);
      }, mayWait);
    } catch (LayerExtender.WouldWait unknownImage) {
      return false;
    } catch (CrigateException.InvalidArgument bad) {
      answerBadRequest(ctx, request, bad.getMessage());
    } catch (RuntimeException failed) {
      LOG.warn("extender call {} failed", request.uri(), failed);
      sendText(ctx, request, HttpResponseStatus.INTERNAL_SERVER_ERROR, "extender failed: " + failed + "\n");
      return true;
    }
    observe(latency, start);
    return true;
  }

  /** A verb's answer, 400s included, goes into its latency; a failure (500) does not. */
  private static void observe(Optional<DistributionDataPoint> latency, long start) {
    latency.ifPresent(histogram -> histogram.observe((System.nanoTime() - start) / 1e9));
  }

  private static void answerBadRequest(ChannelHandlerContext ctx, FullHttpRequest request, String reason) {
    sendText(ctx, request, HttpResponseStatus.BAD_REQUEST, "bad extender request: " + reason + "\n");
  }

  private static void sendText(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status, String text) {
    send(ctx, request, text(status, text));
  }

  private static FullHttpResponse text(HttpResponseStatus status, String text) {
    return response(status, "text/plain; charset=utf-8", Unpooled.wrappedBuffer(text.getBytes(StandardCharsets.UTF_8)));
  }

  private static void send(ChannelHandlerContext ctx, FullHttpRequest request, HttpResponseStatus status, String contentType, ByteBuf body) {
    send(ctx, request, response(status, contentType, body));
  }

  private static FullHttpResponse response(HttpResponseStatus status, String contentType, ByteBuf body) {
    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
    response.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
    HttpUtil.setContentLength(response, body.readableBytes());
    return response;
  }

  /** Keep-alive as the request asked ({@code HttpServerKeepAliveHandler} closes after the answer otherwise). */
  private static void send(ChannelHandlerContext ctx, FullHttpRequest request, FullHttpResponse response) {
    HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
    ctx.writeAndFlush(response);
  }

  @Override
  public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
    // a reset by the client, or a refused TLS handshake: the connection is over, the server is not
    LOG.debug("extender connection {} closed: {}", ctx.channel().remoteAddress(), cause.toString());
    ctx.close();
  }
}

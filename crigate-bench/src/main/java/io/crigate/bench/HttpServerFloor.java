package io.crigate.bench;

import io.crigate.transport.EventLoops;
import io.helidon.common.socket.SocketOptions;
import io.helidon.http.HeaderValues;
import io.helidon.webserver.WebServer;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerKeepAliveHandler;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What an HTTP server alone adds to a prioritize round trip, without the extender: the same request
 * and answer sizes, and a busy wait in place of the verb, served by Helidon 4 (a virtual thread per
 * connection, as the extender served until 2026-11-27) and by Netty's HTTP codec on an epoll event
 * loop (as it serves since), to one curl process each, in 10 interleaved runs (each connection's
 * opening calls apart, {@link CurlPrioritize}). Tells the
 * transport's share of the tail from the verb's.
 *
 * <p>Run: {@code bash scripts/bench-http-floor.sh [requestBytes=222000] [answerBytes=330000] [workMicros=0] [calls=3000]}
 */
public final class HttpServerFloor {

  private static final int RUNS = 10;

  private HttpServerFloor() {}

  public static void main(String[] args) throws Exception {
    int requestBytes = args.length > 0 ? Integer.parseInt(args[0]) : 222_000;
    int answerBytes = args.length > 1 ? Integer.parseInt(args[1]) : 330_000;
    long workNanos = (args.length > 2 ? Long.parseLong(args[2]) : 0) * 1000;
    int calls = args.length > 3 ? Integer.parseInt(args[3]) : 3000;
    byte[] answer = new byte[answerBytes];
    Arrays.fill(answer, (byte) ' ');
    Path work = Files.createTempDirectory("crigate-http-floor");
    byte[] request = new byte[requestBytes];
    Arrays.fill(request, (byte) ' ');
    WebServer helidon = helidon(answer, workNanos);
    EventLoopGroup loops = EventLoops.epoll(1, "floor-http");
    Channel netty = netty(loops, answer, workNanos);
    try {
      Map<String, String> urls = new LinkedHashMap<>();
      urls.put("Helidon 4.5, virtual thread", "http://127.0.0.1:" + helidon.port() + "/prioritize");
      urls.put("Netty epoll, on the event loop", "http://127.0.0.1:" + ((InetSocketAddress) netty.localAddress()).getPort() + "/prioritize");
      Map<String, Samples> samples = new LinkedHashMap<>();
      for (String url : urls.values()) {
        CurlPrioritize.run(url, request, 300, work); // warm-up
      }
      urls.keySet().forEach(server -> samples.put(server, new Samples()));
      var order = new java.util.ArrayList<>(urls.keySet());
      for (int run = 0; run < RUNS; run++) {
        for (String server : order) {
          samples.get(server).addAll(CurlPrioritize.run(urls.get(server), request, calls / RUNS, work).kept());
        }
        java.util.Collections.reverse(order);
      }
      System.out.printf(Locale.ROOT, "request %d bytes, answer %d bytes, %d us of work a call, curl process; load average %s%n",
          requestBytes, answerBytes, workNanos / 1000, Files.readString(Path.of("/proc/loadavg")).trim());
      samples.forEach((server, s) -> {
        long median = s.percentile(50);
        long slow = Arrays.stream(s.values(s.count())).filter(nanos -> nanos > median + 2_000_000).count();
        System.out.printf(Locale.ROOT, "%-32s n=%d  p50 %.2f  p90 %.2f  p99 %.2f  max %.2f ms;  calls over p50 + 2 ms: %d%n", server,
            s.count(), s.percentileMicros(50) / 1e3, s.percentileMicros(90) / 1e3, s.percentileMicros(99) / 1e3,
            s.percentileMicros(100) / 1e3, slow);
      });
    } finally {
      helidon.stop();
      netty.close().syncUninterruptibly();
      EventLoops.shutdown(loops, 10);
    }
  }

  /** Stands in for the verb: holds the serving thread as a call's CPU would. */
  private static void work(long nanos) {
    long end = System.nanoTime() + nanos;
    while (System.nanoTime() < end) {
      Thread.onSpinWait();
    }
  }

  /** As ExtenderServer served on Helidon: body read whole, answer with its length in two writes. */
  private static WebServer helidon(byte[] answer, long workNanos) {
    return WebServer.builder().host("127.0.0.1").port(0).maxPayloadSize(8 << 20)
        .connectionOptions(SocketOptions.builder().tcpNoDelay(true).build())
        .routing(r -> r.post("/prioritize", (request, response) -> {
          try (InputStream body = request.content().inputStream()) {
            body.readAllBytes();
          }
          work(workNanos);
          response.header(HeaderValues.CONTENT_TYPE_JSON);
          response.contentLength(answer.length);
          try (OutputStream out = response.outputStream()) {
            out.write(answer, 0, 1024);
            out.write(answer, 1024, answer.length - 1024);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }))
        .build().start();
  }

  /** As ExtenderServer serves on Netty: the whole request aggregated, answered on the loop that read it. */
  private static Channel netty(EventLoopGroup loops, byte[] answer, long workNanos) {
    return new ServerBootstrap().group(loops).channel(EpollServerSocketChannel.class)
        .childOption(ChannelOption.TCP_NODELAY, true)
        .childHandler(new ChannelInitializer<SocketChannel>() {
          @Override
          protected void initChannel(SocketChannel channel) {
            channel.pipeline().addLast(new HttpServerCodec(), new HttpServerKeepAliveHandler(), new HttpObjectAggregator(8 << 20),
                new SimpleChannelInboundHandler<FullHttpRequest>() {
                  @Override
                  protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest request) {
                    work(workNanos);
                    FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                        ctx.alloc().buffer(answer.length).writeBytes(answer));
                    response.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
                    HttpUtil.setContentLength(response, answer.length);
                    HttpUtil.setKeepAlive(response, HttpUtil.isKeepAlive(request));
                    ctx.writeAndFlush(response);
                  }
                });
          }
        })
        .bind("127.0.0.1", 0).syncUninterruptibly().channel();
  }
}

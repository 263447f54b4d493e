package io.crigate.bench;

import com.google.protobuf.CodedInputStream;
import io.crigate.api.cri.v1.ListContainersRequest;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.VersionRequest;
import io.crigate.transport.EventLoops;
import io.crigate.transport.UnixSocketChannel;
import io.crigate.transport.relay.Http2Upstream;
import io.crigate.transport.relay.Route;
import io.crigate.transport.relay.StreamRelayServer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.EventLoopGroup;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersDecoder;
import io.netty.handler.codec.http2.DefaultHttp2HeadersEncoder;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersEncoder;
import io.netty.util.AsciiString;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Where a relayed call's microseconds go. Runs the relay in this JVM (its own event loop, as
 * crigate's) in front of a real runtime, and times, call by call: the runtime direct, the same
 * call through the relay, and the relay's event loop's CPU per call; then, in isolation and warm,
 * the parts of that CPU the relay's own code is known to spend: decoding the caller's header block
 * (HPACK, as the kubelet sends it), routing (the path's lookup and reading field 1 of the request
 * as {@code RelayRoutes} does, and an id lookup), writing the request upstream (encoding the header
 * block again, framing the data), and the reply (the runtime's headers and trailers decoded and
 * encoded again, the data framed). What the parts leave of the loop's CPU is Netty's pipeline and
 * the socket system calls (two reads, two writes and their epoll wake-ups per call).
 *
 * <p>Usage: {@code RelayCallBreakdown --runtime-endpoint unix:///…sock [--calls 20000] [--rounds 3]}, or
 * {@code RelayCallBreakdown --parts-only} for the parts alone.
 */
public final class RelayCallBreakdown {

  private static final int PARTS_LOOPS = 200_000;
  private static volatile Object sink;

  private RelayCallBreakdown() {}

  public static void main(String[] args) throws Exception {
    if (args.length > 0 && args[0].equals("--parts-only")) {
      parts();
      return;
    }
    Path runtime = UnixSocketChannel.socketPath(option(args, "--runtime-endpoint", null));
    int calls = Integer.parseInt(option(args, "--calls", "20000"));
    int rounds = Integer.parseInt(option(args, "--rounds", "3"));
    Path dir = Files.createTempDirectory("crigate-relay-breakdown");
    EventLoopGroup loop = EventLoops.epoll(1, "relay-breakdown");
    Http2Upstream upstream = Http2Upstream.to(runtime, loop, Duration.ofSeconds(5));
    StreamRelayServer relay = StreamRelayServer.bind(dir.resolve("relay.sock"), loop, (path, message) -> Route.plain(upstream),
        100, Duration.ofSeconds(1));
    UnixSocketChannel direct = UnixSocketChannel.open(runtime, "breakdown-direct");
    UnixSocketChannel relayed = UnixSocketChannel.open(dir.resolve("relay.sock"), "breakdown-relayed");
    try {
      System.out.printf(Locale.ROOT, "relayed call breakdown, %d rounds x %d calls each side, %s, %d cores, load %s%n%n",
          rounds, calls, Runtime.version(), Runtime.getRuntime().availableProcessors(), loadAverage());
      System.out.println("| call | direct p50 µs | relayed p50 µs | added p50 µs | relay loop CPU µs/call |");
      System.out.println("|---|---:|---:|---:|---:|");
      for (String call : new String[] {"Version", "ListContainers"}) {
        Supplier<Object> onDirect = caller(call, direct);
        Supplier<Object> onRelay = caller(call, relayed);
        for (int warm = 0; warm < calls; warm++) {
          onDirect.get();
          onRelay.get();
        }
        double[] directP50 = new double[rounds];
        double[] relayedP50 = new double[rounds];
        double[] cpu = new double[rounds];
        for (int round = 0; round < rounds; round++) {
          Samples d = new Samples();
          Samples r = new Samples();
          long cpuBefore = loopCpuNanos();
          long relayedNanos = 0;
          for (int i = 0; i < calls; i++) {
            long start = System.nanoTime();
            onDirect.get();
            long middle = System.nanoTime();
            onRelay.get();
            long end = System.nanoTime();
            d.add(middle - start);
            r.add(end - middle);
            relayedNanos += end - middle;
          }
          // the loop only works for relayed calls (the direct client has its own)
          cpu[round] = (loopCpuNanos() - cpuBefore) / 1000.0 / calls;
          directP50[round] = d.percentileMicros(50);
          relayedP50[round] = r.percentileMicros(50);
          sink = relayedNanos;
        }
        double dm = median(directP50);
        double rm = median(relayedP50);
        System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f |%n", call, dm, rm, rm - dm, median(cpu));
      }
      System.out.println();
      parts();
    } finally {
      direct.close();
      relayed.close();
      relay.close();
      upstream.close();
      EventLoops.shutdown(loop, 2);
    }
  }

  /** The relay's own work per call, part by part, warm and in isolation. */
  private static void parts() throws Exception {
    Http2Headers request = new DefaultHttp2Headers().method("POST").scheme("http").authority("localhost")
        .path("/runtime.v1.RuntimeService/ContainerStatus").add("content-type", "application/grpc")
        .add("user-agent", "grpc-go/1.65.0").add("te", "trailers").add("grpc-timeout", "1999836u");
    Http2Headers response = new DefaultHttp2Headers().status("200").add("content-type", "application/grpc");
    Http2Headers trailers = new DefaultHttp2Headers().add("grpc-status", "0").add("grpc-message", "");
    byte[] message = io.crigate.api.cri.v1.ContainerStatusRequest.newBuilder()
        .setContainerId("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef").build().toByteArray();
    Map<AsciiString, Integer> kinds = new HashMap<>();
    kinds.put(AsciiString.of("/runtime.v1.RuntimeService/ContainerStatus"), 1);
    Map<String, String> owners = new HashMap<>();
    owners.put("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "containerd");

    // steady state: the sender's encoder and the relay's decoder have seen the same blocks before
    DefaultHttp2HeadersEncoder kubelet = new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true);
    DefaultHttp2HeadersDecoder relayIn = new DefaultHttp2HeadersDecoder(false, 8192);
    DefaultHttp2HeadersEncoder relayOut = new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true);
    // the first blocks fill both sides' tables; the timed ones are the second, all indexed, as on a warm connection
    ByteBuf requestBlock = Unpooled.buffer();
    kubelet.encodeHeaders(1, request, requestBlock);
    relayIn.decodeHeaders(1, requestBlock);
    kubelet.encodeHeaders(1, request, requestBlock.clear());
    DefaultHttp2HeadersEncoder runtimeOut = new DefaultHttp2HeadersEncoder(Http2HeadersEncoder.NEVER_SENSITIVE, true);
    DefaultHttp2HeadersDecoder relayFromRuntime = new DefaultHttp2HeadersDecoder(false, 65536);
    ByteBuf responseBlock = Unpooled.buffer();
    ByteBuf trailersBlock = Unpooled.buffer();
    runtimeOut.encodeHeaders(1, response, responseBlock);
    relayFromRuntime.decodeHeaders(1, responseBlock);
    runtimeOut.encodeHeaders(1, trailers, trailersBlock);
    relayFromRuntime.decodeHeaders(1, trailersBlock);
    runtimeOut.encodeHeaders(1, response, responseBlock.clear());
    runtimeOut.encodeHeaders(1, trailers, trailersBlock.clear());
    ByteBufAllocator alloc = ByteBufAllocator.DEFAULT;
    ByteBuf messageBuf = Unpooled.wrappedBuffer(message);

    double decode = timed(() -> {
      try {
        return relayIn.decodeHeaders(1, requestBlock.duplicate());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    double route = timed(() -> {
      Integer kind = kinds.get(AsciiString.of(request.path()));
      try {
        CodedInputStream in = CodedInputStream.newInstance(messageBuf.nioBuffer());
        in.readTag();
        return kind + owners.get(in.readStringRequireUtf8());
      } catch (Exception e) {
        throw new IllegalStateException(e);
      }
    });
    double upstreamWrite = timed(() -> {
      ByteBuf out = alloc.buffer(256);
      try {
        out.writeZero(9);
        relayOut.encodeHeaders(1, request, out);
        out.writeZero(9);
        out.writeBytes(messageBuf.duplicate());
        return out.readableBytes();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      } finally {
        out.release();
      }
    });
    double reply = timed(() -> {
      ByteBuf out = alloc.buffer(256);
      try {
        Http2Headers h = relayFromRuntime.decodeHeaders(1, responseBlock.duplicate());
        Http2Headers t = relayFromRuntime.decodeHeaders(1, trailersBlock.duplicate());
        out.writeZero(9);
        relayOut.encodeHeaders(3, h, out);
        out.writeZero(9);
        out.writeZero(9);
        relayOut.encodeHeaders(3, t, out);
        return out.readableBytes();
      } catch (Exception e) {
        throw new IllegalStateException(e);
      } finally {
        out.release();
      }
    });
    System.out.println("| part of the relay's own work per call (warm, in isolation) | µs |");
    System.out.println("|---|---:|");
    System.out.printf(Locale.ROOT, "| decode: the caller's header block (HPACK) | %.2f |%n", decode);
    System.out.printf(Locale.ROOT, "| route: path lookup, field 1 of the request, owner lookup | %.2f |%n", route);
    System.out.printf(Locale.ROOT, "| upstream write: header block encoded again, frames | %.2f |%n", upstreamWrite);
    System.out.printf(Locale.ROOT, "| reply: response headers and trailers decoded and encoded again, frames | %.2f |%n", reply);
    System.out.printf(Locale.ROOT, "| sum | %.2f |%n", decode + route + upstreamWrite + reply);
  }

  /** µs per run of {@code work}, the median of 5 timed batches after a warm-up batch. */
  private static double timed(Supplier<Object> work) {
    double[] batches = new double[5];
    for (int batch = -1; batch < batches.length; batch++) {
      long start = System.nanoTime();
      for (int i = 0; i < PARTS_LOOPS; i++) {
        sink = work.get();
      }
      if (batch >= 0) {
        batches[batch] = (System.nanoTime() - start) / 1000.0 / PARTS_LOOPS;
      }
    }
    return median(batches);
  }

  private static Supplier<Object> caller(String call, UnixSocketChannel channel) {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub stub = RuntimeServiceGrpc.newBlockingStub(channel.channel());
    return switch (call) {
      case "Version" -> () -> stub.version(VersionRequest.getDefaultInstance());
      case "ListContainers" -> () -> stub.listContainers(ListContainersRequest.getDefaultInstance());
      default -> throw new IllegalArgumentException(call);
    };
  }

  /** CPU of the relay's event loop threads so far. */
  private static long loopCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long total = 0;
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.getName().startsWith("relay-breakdown")) {
        total += Math.max(0, threads.getThreadCpuTime(thread.threadId()));
      }
    }
    return total;
  }

  private static String loadAverage() {
    try {
      return Files.readString(Path.of("/proc/loadavg")).split(" ", 4)[0];
    } catch (Exception e) {
      return "?";
    }
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    java.util.Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }

  private static String option(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    if (fallback == null) {
      throw new IllegalArgumentException(name + " is required");
    }
    return fallback;
  }
}

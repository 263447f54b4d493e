package io.crigate.bench;

import static java.nio.charset.StandardCharsets.UTF_8;

import com.google.protobuf.ByteString;
import com.google.protobuf.BytesValue;
import io.crigate.ttrpc.CallOptions;
import io.crigate.ttrpc.ServiceDefinition;
import io.crigate.ttrpc.TtrpcClient;
import io.crigate.ttrpc.TtrpcServer;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * ttrpc round trip, crigate's Java against containerd's Go, in one run: each side's client calls
 * its own server in a separate process (and the cross pairs), sequentially, a 64-byte
 * {@code BytesValue} echo over a unix socket. Rounds alternate between the pairs so machine drift
 * lands on all alike; the report gives the median over rounds of each round's p50 and p99.
 *
 * <p>Usage: {@code TtrpcRoundTripBenchmark --go-peer PATH [--iterations 20000] [--rounds 5]}; the
 * Go peer is crigate-ttrpc/src/test/resources/gopath/src/ttrpcpeer (scripts/bench-ttrpc.sh builds it).
 */
public final class TtrpcRoundTripBenchmark {

  private static final String SVC = "crigate.test.Echo";
  private static final BytesValue PAYLOAD = BytesValue.of(ByteString.copyFrom(new byte[64]));

  private TtrpcRoundTripBenchmark() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length == 2 && args[0].equals("--serve-java")) {
      serveJava(Path.of(args[1]));
      return;
    }
    String goPeer = option(args, "--go-peer", null);
    int iterations = Integer.parseInt(option(args, "--iterations", "20000"));
    int rounds = Integer.parseInt(option(args, "--rounds", "5"));
    Path dir = Files.createTempDirectory("crigate-ttrpc-bench");
    Path goSock = dir.resolve("go.sock");
    Path javaSock = dir.resolve("java.sock");
    Process goServer = started(new ProcessBuilder(goPeer, "server", goSock.toString()));
    Process javaServer = started(new ProcessBuilder(ProcessHandle.current().info().command().orElseThrow(),
        "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
        TtrpcRoundTripBenchmark.class.getName(), "--serve-java", javaSock.toString()));
    try (TtrpcClient toJava = TtrpcClient.connect(javaSock); TtrpcClient toGo = TtrpcClient.connect(goSock)) {
      String[] pairs = {"Go client -> Go server", "Java client -> Java server", "Java client -> Go server",
          "Go client -> Java server"};
      List<List<double[]>> results = new ArrayList<>();
      for (String ignored : pairs) {
        results.add(new ArrayList<>());
      }
      for (int round = 0; round < rounds; round++) {
        results.get(0).add(goClient(goPeer, goSock, iterations));
        results.get(1).add(javaClient(toJava, iterations));
        results.get(2).add(javaClient(toGo, iterations));
        results.get(3).add(goClient(goPeer, javaSock, iterations));
      }
      System.out.printf(Locale.ROOT, "ttrpc round trip, %d rounds x %d sequential calls, 64-byte payload, %s, %d cores%n%n",
          rounds, iterations, System.getProperty("java.vm.name") + " " + Runtime.version(),
          Runtime.getRuntime().availableProcessors());
      System.out.println("| pair | p50 µs (median of rounds) | p99 µs (median of rounds) |");
      System.out.println("|---|---:|---:|");
      double[] p50 = new double[pairs.length];
      for (int i = 0; i < pairs.length; i++) {
        p50[i] = median(results.get(i), 0);
        System.out.printf(Locale.ROOT, "| %s | %.1f | %.1f |%n", pairs[i], p50[i], median(results.get(i), 1));
      }
      System.out.printf(Locale.ROOT, "%nJava/Go p50 ratio: %.2f%n", p50[1] / p50[0]);
    } finally {
      goServer.getOutputStream().close();
      javaServer.getOutputStream().close();
      goServer.waitFor(10, TimeUnit.SECONDS);
      javaServer.waitFor(10, TimeUnit.SECONDS);
      goServer.destroy();
      javaServer.destroy();
    }
  }

  private static double[] javaClient(TtrpcClient client, int iterations) {
    byte[] request = PAYLOAD.toByteArray();
    for (int i = 0; i < iterations / 10; i++) {
      client.call(SVC, "Echo", request, CallOptions.DEFAULT);
    }
    long[] nanos = new long[iterations];
    for (int i = 0; i < iterations; i++) {
      long start = System.nanoTime();
      client.call(SVC, "Echo", request, CallOptions.DEFAULT);
      nanos[i] = System.nanoTime() - start;
    }
    Arrays.sort(nanos);
    return new double[] {rank(nanos, 50) / 1000.0, rank(nanos, 99) / 1000.0};
  }

  private static long rank(long[] sorted, int percentile) {
    return sorted[(int) Math.ceil(percentile / 100.0 * sorted.length) - 1];
  }

  private static double[] goClient(String goPeer, Path socket, int iterations) throws Exception {
    Process p = new ProcessBuilder(goPeer, "bench", socket.toString(), Integer.toString(iterations))
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String out = new String(p.getInputStream().readAllBytes(), UTF_8).trim();
    if (p.waitFor() != 0) {
      throw new IllegalStateException("go bench failed: " + out);
    }
    String[] cells = out.split(" ");
    return new double[] {Double.parseDouble(cells[0]), Double.parseDouble(cells[1])};
  }

  private static double median(List<double[]> rounds, int column) {
    double[] values = rounds.stream().mapToDouble(r -> r[column]).sorted().toArray();
    return values[values.length / 2];
  }

  private static Process started(ProcessBuilder pb) throws Exception {
    Process p = pb.redirectError(ProcessBuilder.Redirect.INHERIT).start();
    String first = new BufferedReader(new InputStreamReader(p.getInputStream(), UTF_8)).readLine();
    if (!"READY".equals(first)) {
      p.destroy();
      throw new IllegalStateException("server did not start: " + first);
    }
    return p;
  }

  /** The Java side's server process: echoes until stdin closes, like the Go peer's. */
  private static void serveJava(Path socket) throws Exception {
    try (TtrpcServer server = TtrpcServer.builder()
        .service(ServiceDefinition.builder(SVC).unary("Echo", BytesValue.parser(), (ctx, in) -> in).build())
        .build().bind(socket)) {
      System.out.println("READY");
      System.out.flush();
      System.in.transferTo(java.io.OutputStream.nullOutputStream());
    }
  }

  static String option(String[] args, String name, String fallback) {
    for (int i = 0; i + 1 < args.length; i++) {
      if (args[i].equals(name)) {
        return args[i + 1];
      }
    }
    if (fallback == null) {
      throw new IllegalArgumentException("missing " + name);
    }
    return fallback;
  }
}

package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code crigate ctl port-forward} through crigate into a host-network pod on containerd A: the
 * URL is containerd's own streaming server's, spoken to over WebSocket v4. The pod shares the host's
 * network, so the forwarded port reaches a listener this test opens on loopback.
 */
class CtlPortForwardIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA());

  @Test
  void eachLocalConnectionReachesThePodsPortOverItsOwnStream() throws Exception {
    PodSandboxConfig pod = hostNetworkPod("port-forward", crigate.workDir().resolve("pods"));
    String podId = crigate.cri().runtime().runPodSandbox(runPod(pod, "")).getPodSandboxId();
    Path output = crigate.workDir().resolve("port-forward.out");
    Process forward = null;
    try (ServerSocket service = new ServerSocket(0, 8, InetAddress.getLoopbackAddress())) {
      Thread.ofPlatform().daemon().start(() -> answer(service));
      forward = new ProcessBuilder(Infra.repositoryRoot().resolve("bin/crigate").toString(), "ctl",
          "-r", "unix://" + crigate.process().socket(), "port-forward", podId.substring(0, 12),
          ":" + service.getLocalPort())
          .redirectOutput(output.toFile()).redirectErrorStream(true).start();
      Pattern forwarding = Pattern.compile("Forwarding from 127.0.0.1:(\\d+) -> " + service.getLocalPort());
      String printed = await("ctl port-forward listening").atMost(Duration.ofSeconds(60))
          .until(() -> Files.readString(output), text -> forwarding.matcher(text).find());
      Matcher local = forwarding.matcher(printed);
      assertThat(local.find()).isTrue();
      int localPort = Integer.parseInt(local.group(1));

      // two connections: a streaming URL is single-use, so the second needs a PortForward of its own
      assertThat(roundTrip(localPort, "first")).isEqualTo("echo:first");
      assertThat(roundTrip(localPort, "second")).isEqualTo("echo:second");
    } finally {
      if (forward != null) {
        forward.destroy();
        forward.waitFor();
      }
      crigate.cri().runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
      crigate.cri().runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    }
    assertThat(Files.readString(output)).as("no errors from ctl").doesNotContain("crigate ctl port-forward:");
  }

  /** Answers each connection's line with {@code echo:<line>}. */
  private static void answer(ServerSocket service) {
    while (!service.isClosed()) {
      try (Socket client = service.accept()) {
        String line = new BufferedReader(new InputStreamReader(client.getInputStream(), StandardCharsets.UTF_8)).readLine();
        client.getOutputStream().write(("echo:" + line + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        return;
      }
    }
  }

  private static String roundTrip(int port, String line) throws IOException {
    try (Socket socket = new Socket(InetAddress.getLoopbackAddress(), port)) {
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      out.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      out.flush();
      return new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.UTF_8)).readLine();
    }
  }
}

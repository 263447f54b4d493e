package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "port-forward",
    description = "Forward local ports to a pod (PortForward) until interrupted; each connection gets its own stream.")
final class PortForwardCommand extends CriAction {

  /** {@code local} 0: any free port, printed. */
  record Mapping(int local, int remote) {
    static Mapping parse(String text) {
      String[] parts = text.split(":", -1);
      try {
        if (parts.length == 1) {
          int port = port(parts[0], 1);
          return new Mapping(port, port);
        }
        if (parts.length == 2) {
          return new Mapping(parts[0].isEmpty() ? 0 : port(parts[0], 0), port(parts[1], 1));
        }
      } catch (NumberFormatException e) {
        // reported below
      }
      throw new CrigateException.InvalidArgument(
          "'%s' is not [LOCAL-PORT:]REMOTE-PORT (ports 1-65535; LOCAL-PORT empty or 0 picks a free one)".formatted(text));
    }

    private static int port(String text, int lowest) {
      return PortNumber.parse(text, lowest).orElseThrow(() -> new NumberFormatException(text));
    }
  }

  @Parameters(index = "0", paramLabel = "POD-ID", description = "Pod id or unique prefix.")
  String pod;

  @Parameters(index = "1..*", arity = "1..*", paramLabel = "[LOCAL-PORT:]REMOTE-PORT",
      description = "Ports to forward, e.g. 8080:80, :80 (free local port) or 80.")
  List<String> ports;

  @Option(names = "--address", defaultValue = "127.0.0.1",
      description = "Local address to listen on (default: ${DEFAULT-VALUE}).")
  String address;

  @Override
  int run(CriSession cri) throws IOException {
    List<Mapping> mappings = ports.stream().map(Mapping::parse).toList();
    String podId = cri.podId(pod);
    List<ServerSocketChannel> listeners = new ArrayList<>();
    try {
      for (Mapping mapping : mappings) {
        ServerSocketChannel listener = ServerSocketChannel.open()
            .bind(new InetSocketAddress(InetAddress.getByName(address), mapping.local()));
        listeners.add(listener);
        InetSocketAddress bound = (InetSocketAddress) listener.getLocalAddress();
        out().printf("Forwarding from %s:%d -> %d%n", bound.getHostString(), bound.getPort(), mapping.remote());
      }
      out().flush();
      List<Thread> acceptors = new ArrayList<>();
      for (int i = 0; i < mappings.size(); i++) {
        ServerSocketChannel listener = listeners.get(i);
        int remote = mappings.get(i).remote();
        acceptors.add(Thread.ofPlatform().daemon().name("ctl-forward-" + remote)
            .start(() -> accept(cri, podId, listener, remote)));
      }
      for (Thread acceptor : acceptors) {
        acceptor.join();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      for (ServerSocketChannel listener : listeners) {
        listener.close();
      }
    }
    return 0;
  }

  /** Until the listener closes: each connection asks for a fresh URL (they are single-use) and runs on its own thread. */
  private void accept(CriSession cri, String podId, ServerSocketChannel listener, int remote) {
    while (listener.isOpen()) {
      SocketChannel connection;
      try {
        connection = listener.accept();
      } catch (IOException e) {
        return;
      }
      Thread.ofPlatform().daemon().name("ctl-tunnel-" + remote).start(() -> {
        try {
          String url = cri.runtime().portForward(PortForwardRequest.newBuilder().setPodSandboxId(podId)
              .addPort(remote).build()).getUrl();
          PortTunnel.run(url, remote, connection, err());
        } catch (IOException | RuntimeException e) {
          err().println("crigate ctl port-forward: port " + remote + ": " + e.getMessage());
          err().flush();
          closeQuietly(connection);
        }
      });
    }
  }

  private static void closeQuietly(SocketChannel connection) {
    try {
      connection.close();
    } catch (IOException e) {
      // the connection is given up anyway
    }
  }
}

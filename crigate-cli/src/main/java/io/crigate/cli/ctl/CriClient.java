package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ImageServiceGrpc;
import io.crigate.api.cri.v1.ImageServiceGrpc.ImageServiceBlockingStub;
import io.crigate.api.cri.v1.RuntimeServiceGrpc;
import io.crigate.api.cri.v1.RuntimeServiceGrpc.RuntimeServiceBlockingStub;
import io.crigate.spi.CrigateException.InvalidArgument;
import io.crigate.transport.UnixSocketChannel;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * A plaintext gRPC channel to a CRI endpoint on a unix socket, handing out blocking stubs that each
 * carry their own deadline. Shared by {@code crigate ctl} and the integration tests' CRI client.
 */
public final class CriClient implements AutoCloseable {

  private final String endpoint;
  private final UnixSocketChannel connection;

  private CriClient(String endpoint, UnixSocketChannel connection) {
    this.endpoint = endpoint;
    this.connection = connection;
  }

  /**
   * Opens a channel to {@code unix:///path} (a bare absolute path is accepted too). Connecting is
   * lazy: an absent socket surfaces as {@code UNAVAILABLE} on the first call.
   */
  public static CriClient connect(String endpoint) {
    return new CriClient(endpoint, UnixSocketChannel.open(socketPath(endpoint), "crigate-cri-client"));
  }

  static Path socketPath(String endpoint) {
    try {
      return UnixSocketChannel.socketPath(endpoint);
    } catch (IllegalArgumentException e) {
      throw new InvalidArgument(e.getMessage());
    }
  }

  public String endpoint() {
    return endpoint;
  }

  /** A runtime stub whose calls must finish within {@code deadline} from now. */
  public RuntimeServiceBlockingStub runtime(Duration deadline) {
    return RuntimeServiceGrpc.newBlockingStub(connection.channel())
        .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
  }

  /** An image stub whose calls must finish within {@code deadline} from now. */
  public ImageServiceBlockingStub images(Duration deadline) {
    return ImageServiceGrpc.newBlockingStub(connection.channel())
        .withDeadlineAfter(deadline.toNanos(), TimeUnit.NANOSECONDS);
  }

  @Override
  public void close() {
    connection.close();
  }
}

package io.crigate.interlink.http;

import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import java.nio.file.Path;

/**
 * Where a server listens and how it is protected.
 *
 * @param address {@code host:port} (port 0 picks a free one) or {@code unix:///path/to.sock}
 * @param tlsCert PEM certificate chain; with {@code tlsKey}, the server speaks HTTPS
 * @param tlsKey PEM PKCS#8 private key
 * @param tokenFile a file holding the bearer token clients must send, re-read on change; null for none
 */
public record HttpEndpoint(String address, Path tlsCert, Path tlsKey, Path tokenFile) {

  private static final String UNIX = "unix://";

  /** A listen address is checked here, when it is given, not when the server binds it. */
  public HttpEndpoint {
    if (address.startsWith(UNIX)) {
      if (address.length() == UNIX.length()) {
        throw invalid(address, "the unix socket's path is missing");
      }
    } else {
      int colon = address.lastIndexOf(':');
      if (colon < 0) {
        throw invalid(address, "neither host:port nor unix:///path");
      }
      int port = parsePort(address, address.substring(colon + 1));
      if (!PortNumber.listenable(port)) {
        throw invalid(address, "the port must be 0 (any free port) to 65535");
      }
    }
  }

  private static int parsePort(String address, String port) {
    try {
      return Integer.parseInt(port);
    } catch (NumberFormatException notANumber) {
      throw invalid(address, "the port '%s' is not a number".formatted(port));
    }
  }

  private static CrigateException.InvalidArgument invalid(String address, String problem) {
    return new CrigateException.InvalidArgument("listen address '%s': %s".formatted(address, problem));
  }

  public static HttpEndpoint plain(String address) {
    return new HttpEndpoint(address, null, null, null);
  }

  public boolean unix() {
    return address.startsWith(UNIX);
  }

  public Path socketPath() {
    return Path.of(address.substring(UNIX.length()));
  }

  /** The host of a {@code host:port} address. */
  public String host() {
    return address.substring(0, address.lastIndexOf(':'));
  }

  /** The port of a {@code host:port} address. */
  public int port() {
    return Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
  }

  public boolean tls() {
    return tlsCert != null;
  }

  public HttpEndpoint withToken(Path file) {
    return new HttpEndpoint(address, tlsCert, tlsKey, file);
  }

  public HttpEndpoint withTls(Path cert, Path key) {
    return new HttpEndpoint(address, cert, key, tokenFile);
  }
}

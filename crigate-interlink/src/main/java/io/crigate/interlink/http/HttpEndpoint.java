package io.crigate.interlink.http;

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

  public static HttpEndpoint plain(String address) {
    return new HttpEndpoint(address, null, null, null);
  }

  public boolean unix() {
    return address.startsWith("unix://");
  }

  public Path socketPath() {
    return Path.of(address.substring("unix://".length()));
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

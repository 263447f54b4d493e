package io.crigate.streaming;

import io.crigate.spi.CrigateException;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * TLS for a streaming server that listens where more than the kubelet can reach it. The kubelet
 * proxies a session without checking the server's certificate, so TLS here encrypts the streams on
 * the node's network; it does not authenticate crigate (the single-use token does that part).
 *
 * @param certFile PEM certificate chain
 * @param keyFile its PEM PKCS#8 private key ({@code BEGIN PRIVATE KEY}, as {@code openssl req -nodes} writes)
 */
public record StreamingTls(Path certFile, Path keyFile) {

  public StreamingTls {
    requireReadable("tlsCert", certFile);
    requireReadable("tlsKey", keyFile);
  }

  /** Read now, so a certificate or key that cannot be used stops the start, not the first exec. */
  SslContext context() {
    try {
      return SslContextBuilder.forServer(certFile.toFile(), keyFile.toFile()).build();
    } catch (Exception e) {
      throw new CrigateException.InvalidArgument("streaming.tlsCert %s with streaming.tlsKey %s cannot be used: %s (the key must be "
          .formatted(certFile, keyFile, e.getMessage()) + "PEM PKCS#8, BEGIN PRIVATE KEY)");
    }
  }

  private static void requireReadable(String key, Path file) {
    if (!Files.isReadable(file)) {
      throw new CrigateException.InvalidArgument("streaming.%s %s is not a readable file".formatted(key, file));
    }
  }
}

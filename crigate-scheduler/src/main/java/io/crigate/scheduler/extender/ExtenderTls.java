package io.crigate.scheduler.extender;

import io.crigate.spi.CrigateException;
import io.helidon.common.configurable.Resource;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.common.tls.TlsConfig;
import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.IdentityCipherSuiteFilter;
import io.netty.handler.ssl.JdkSslContext;
import io.netty.handler.ssl.SslContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * TLS for the extender, in the shape kube-scheduler's extender {@code tlsConfig} speaks: the
 * server presents {@code certFile} (PEM chain) with {@code keyFile} (PEM PKCS#8 or PKCS#1 key),
 * and with a {@code clientCaFile} it requires every client to present a certificate signed by that
 * CA, which is how only kube-scheduler (holding the client key) gets answers.
 */
public record ExtenderTls(Path certFile, Path keyFile, Optional<Path> clientCaFile) {

  public ExtenderTls {
    requireReadable("TLS certificate", certFile);
    requireReadable("TLS key", keyFile);
    clientCaFile.ifPresent(ca -> requireReadable("client CA", ca));
  }

  /**
   * The server's TLS for Netty. The PEM files are read by Helidon's TLS support, which takes PKCS#1
   * keys as well as PKCS#8 (Netty's own reader needs Bouncy Castle for PKCS#1), into the JDK's
   * TLS engine.
   */
  SslContext nettyContext() {
    ClientAuth clientAuth = clientCaFile.isPresent() ? ClientAuth.REQUIRE : ClientAuth.NONE;
    return new JdkSslContext(helidonTls().sslContext(), false, null, IdentityCipherSuiteFilter.INSTANCE, null, clientAuth, null, false);
  }

  private Tls helidonTls() {
    TlsConfig.Builder tls = Tls.builder()
        .privateKey(keys -> keys.pem(pem -> pem.key(Resource.create(keyFile))))
        .privateKeyCertChain(keys -> keys.pem(pem -> pem.certChain(Resource.create(certFile))));
    clientCaFile.ifPresent(ca -> tls
        .trust(keys -> keys.pem(pem -> pem.certificates(Resource.create(ca))))
        .clientAuth(TlsClientAuth.REQUIRED));
    return tls.build();
  }

  private static void requireReadable(String what, Path file) {
    if (!Files.isReadable(file)) {
      throw new CrigateException.InvalidArgument("extender %s file %s is not readable".formatted(what, file));
    }
  }
}

package io.crigate.scheduler.extender;

import io.crigate.spi.CrigateException;
import io.helidon.common.configurable.Resource;
import io.helidon.common.tls.Tls;
import io.helidon.common.tls.TlsClientAuth;
import io.helidon.common.tls.TlsConfig;
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

  Tls helidonTls() {
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

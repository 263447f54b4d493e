package io.crigate.testsupport;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** A throwaway certificate for 127.0.0.1 (openssl: PEM chain, PKCS#8 key) and a client that trusts only it. */
public final class SelfSignedTls {

  private SelfSignedTls() {}

  /** Writes {@code tls.crt} and {@code tls.key} into {@code dir}. */
  public static void generate(Path dir) throws IOException, InterruptedException {
    Process openssl = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", dir.resolve("tls.key").toString(),
        "-out", dir.resolve("tls.crt").toString()).redirectErrorStream(true).start();
    String out = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (openssl.waitFor() != 0) {
      throw new IOException("openssl req failed: " + out);
    }
  }

  public static SSLContext trusting(Path cert) throws IOException, GeneralSecurityException {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", CertificateFactory.getInstance("X.509")
        .generateCertificate(new ByteArrayInputStream(Files.readAllBytes(cert))));
    TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    factory.init(trust);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(null, factory.getTrustManagers(), null);
    return context;
  }
}

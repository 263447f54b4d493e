package io.crigate.interlink.http;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.List;

/** A PEM certificate chain and PKCS#8 key (what cert-manager and openssl write) as an in-memory KeyStore. */
final class PemKeyStore {

  static final char[] PASSWORD = "crigate".toCharArray();

  private PemKeyStore() {}

  static KeyStore load(Path certFile, Path keyFile) {
    try {
      CertificateFactory factory = CertificateFactory.getInstance("X.509");
      List<? extends Certificate> chain = List.copyOf(factory.generateCertificates(
          new ByteArrayInputStream(Files.readAllBytes(certFile))));
      if (chain.isEmpty()) {
        throw new IllegalArgumentException("tlsCert %s holds no certificate".formatted(certFile));
      }
      String pem = Files.readString(keyFile);
      if (!pem.contains("-----BEGIN PRIVATE KEY-----")) {
        throw new IllegalArgumentException(("tlsKey %s is not a PKCS#8 key (BEGIN PRIVATE KEY); convert it with "
            + "'openssl pkcs8 -topk8 -nocrypt -in old.key -out new.key'").formatted(keyFile));
      }
      byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", "").strip());
      PrivateKey key = privateKey(der, chain.getFirst().getPublicKey().getAlgorithm());
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      store.setKeyEntry("server", key, PASSWORD, chain.toArray(Certificate[]::new));
      return store;
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read the TLS certificate or key", e);
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("unusable TLS certificate or key: " + e.getMessage(), e);
    }
  }

  private static PrivateKey privateKey(byte[] der, String algorithm) throws GeneralSecurityException {
    return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
  }
}

package io.crigate.scheduler.extender;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Date;
import java.util.concurrent.atomic.AtomicLong;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/** Certificate authorities and the certificates they sign, made fresh for a test. */
final class TestPki {

  private static final AtomicLong SERIAL = new AtomicLong(System.nanoTime());

  /** A key pair with its certificate; {@code issuer} is itself for a CA. */
  record Identity(KeyPair keys, X509Certificate certificate) {

    /** Writes the certificate and the PKCS#8 key as PEM, the files kube-scheduler's tlsConfig names. */
    Path certFile(Path dir, String name) throws Exception {
      return Files.writeString(dir.resolve(name + ".crt"), pem("CERTIFICATE", certificate.getEncoded()), StandardCharsets.US_ASCII);
    }

    Path keyFile(Path dir, String name) throws Exception {
      return Files.writeString(dir.resolve(name + ".key"), pem("PRIVATE KEY", keys.getPrivate().getEncoded()), StandardCharsets.US_ASCII);
    }

    Identity sign(String subject, boolean ca, GeneralName... names) throws Exception {
      return issue(subject, ca, this, names);
    }
  }

  private TestPki() {}

  static Identity authority(String name) throws Exception {
    return issue("CN=" + name, true, null);
  }

  private static Identity issue(String subject, boolean ca, Identity issuer, GeneralName... names) throws Exception {
    KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
    generator.initialize(2048);
    KeyPair keys = generator.generateKeyPair();
    Instant now = Instant.now();
    X509v3CertificateBuilder builder = new JcaX509v3CertificateBuilder(
        new X500Name(issuer == null ? subject : issuer.certificate().getSubjectX500Principal().getName()),
        BigInteger.valueOf(SERIAL.incrementAndGet()), Date.from(now.minus(Duration.ofHours(1))),
        Date.from(now.plus(Duration.ofDays(1))), new X500Name(subject), keys.getPublic());
    builder.addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
    builder.addExtension(Extension.keyUsage, true, new KeyUsage(ca
        ? KeyUsage.keyCertSign | KeyUsage.cRLSign
        : KeyUsage.digitalSignature | KeyUsage.keyEncipherment));
    if (names.length > 0) {
      builder.addExtension(Extension.subjectAlternativeName, false, new GeneralNames(names));
    }
    var signingKey = issuer == null ? keys.getPrivate() : issuer.keys().getPrivate();
    try {
      var certificate = new JcaX509CertificateConverter().getCertificate(
          builder.build(new JcaContentSignerBuilder("SHA256withRSA").build(signingKey)));
      return new Identity(keys, certificate);
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException(e);
    }
  }

  /** A client context trusting {@code trusted}, presenting {@code client} when not null. */
  static SSLContext clientContext(Identity trusted, Identity client) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("ca", trusted.certificate());
    TrustManagerFactory trustManagers = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    trustManagers.init(trust);
    KeyManagerFactory keyManagers = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    KeyStore own = KeyStore.getInstance("PKCS12");
    own.load(null, null);
    if (client != null) {
      own.setKeyEntry("client", client.keys().getPrivate(), new char[0], new Certificate[] {client.certificate()});
    }
    keyManagers.init(own, new char[0]);
    SSLContext context = SSLContext.getInstance("TLS");
    context.init(keyManagers.getKeyManagers(), trustManagers.getTrustManagers(), null);
    return context;
  }

  private static String pem(String type, byte[] der) {
    return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der)
        + "\n-----END " + type + "-----\n";
  }
}

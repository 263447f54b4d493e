package io.crigate.cli;

import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Where an interLink server listens and how it is protected; shared by the interLink subcommands. */
final class ServerOptions {

  @Option(names = "--listen", paramLabel = "HOST:PORT|unix:///PATH",
      description = "Address to serve on (default: the command's usual port on 127.0.0.1).")
  String listen;

  @Option(names = "--tls-cert", paramLabel = "PEM", description = "Serve HTTPS with this certificate chain (with --tls-key).")
  Path tlsCert;

  @Option(names = "--tls-key", paramLabel = "PEM", description = "PKCS#8 private key of --tls-cert.")
  Path tlsKey;

  @Option(names = "--token-file", paramLabel = "FILE",
      description = "Require 'Authorization: Bearer <token>' with the token in this file (re-read on change; never logged).")
  Path tokenFile;

  HttpEndpoint endpoint(String defaultListen) {
    if ((tlsCert == null) != (tlsKey == null)) {
      throw new CrigateException.InvalidArgument("--tls-cert and --tls-key go together");
    }
    return new HttpEndpoint(listen == null ? defaultListen : listen, tlsCert, tlsKey, tokenFile);
  }
}

package io.crigate.cli;

import io.crigate.webhook.WebhookServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code crigate webhook}: the mutating admission webhook behind the policies' resource annotation. */
@Command(
    name = "webhook",
    mixinStandardHelpOptions = true,
    description = "Serves POST /mutate over TLS: copies each container's requests and limits into the pod "
        + "annotation resources.crigate.io/containers (AdmissionReview v1, JSONPatch). Manifests: deploy/webhook.yaml.")
final class WebhookCommand implements Callable<Integer> {

  @Option(names = "--listen", defaultValue = "0.0.0.0", description = "Address. Default: ${DEFAULT-VALUE}")
  String host;

  @Option(names = "--port", defaultValue = "8443", description = "Default: ${DEFAULT-VALUE}")
  int port;

  @Option(names = "--tls-cert", required = true, description = "PEM certificate chain the API server trusts (caBundle)")
  Path cert;

  @Option(names = "--tls-key", required = true, description = "PEM private key of that certificate")
  Path key;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws InterruptedException {
    for (Path file : new Path[] {cert, key}) {
      if (!Files.isReadable(file)) {
        spec.commandLine().getErr().println("crigate webhook: cannot read " + file);
        return 2;
      }
    }
    try (WebhookServer server = new WebhookServer(host, port, cert, key)) {
      CountDownLatch stopped = new CountDownLatch(1);
      Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
      stopped.await();
    }
    return 0;
  }
}

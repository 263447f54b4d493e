package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

@Command(name = "pull", description = "Pull an image; prints the image reference.")
final class PullCommand extends CriAction {

  /** Registries can take minutes for large layers; crictl users expect pull to wait. */
  static final Duration PULL_DEADLINE = Duration.ofMinutes(2);

  @Parameters(index = "0", paramLabel = "IMAGE", description = "Image name, e.g. 127.0.0.1:5000/demo:1.")
  String image;

  @ArgGroup(exclusive = true)
  Credentials credentials;

  @Option(names = {"-p", "--pod-config"}, description = "PodSandboxConfig file of the pod it is for.")
  Path podConfig;

  static final class Credentials {
    @Option(names = "--creds", paramLabel = "USER:PASSWORD", description = "Registry credentials.")
    String userAndPassword;

    @Option(names = "--auth", paramLabel = "AUTH", description = "Base64 of user:password, as in docker's config.json.")
    String auth;

    AuthConfig toAuthConfig() {
      if (auth != null) {
        return AuthConfig.newBuilder().setAuth(auth).build();
      }
      int colon = userAndPassword.indexOf(':');
      if (colon <= 0) {
        throw new InvalidArgument("--creds must be USER:PASSWORD");
      }
      return AuthConfig.newBuilder()
          .setUsername(userAndPassword.substring(0, colon))
          .setPassword(userAndPassword.substring(colon + 1))
          .build();
    }
  }

  @Override
  Duration defaultDeadline() {
    return PULL_DEADLINE;
  }

  @Override
  int run(CriSession cri) {
    PodSandboxConfig sandbox =
        podConfig == null
            ? PodSandboxConfig.getDefaultInstance()
            : ConfigFile.read(podConfig, PodSandboxConfig.newBuilder()).build();
    AuthConfig auth = credentials == null ? null : credentials.toAuthConfig();
    String ref = ImagePull.pull(cri, ImageSpec.newBuilder().setImage(image).build(), sandbox, auth);
    out().println("Image is up to date for " + ref);
    return 0;
  }
}

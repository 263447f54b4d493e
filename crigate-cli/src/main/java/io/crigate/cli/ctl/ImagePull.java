package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.AuthConfig;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PullImageRequest;

/** One PullImage call, shared by {@code pull} and {@code create --with-pull}. */
final class ImagePull {

  private ImagePull() {}

  /** Pulls and returns the image reference; {@code auth} may be null for anonymous pulls. */
  static String pull(CriSession cri, ImageSpec image, PodSandboxConfig sandbox, AuthConfig auth) {
    PullImageRequest.Builder request =
        PullImageRequest.newBuilder().setImage(image).setSandboxConfig(sandbox);
    if (auth != null) {
      request.setAuth(auth);
    }
    return cri.images().pullImage(request.build()).getImageRef();
  }
}

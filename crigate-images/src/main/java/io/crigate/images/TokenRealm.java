package io.crigate.images;

import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;

/**
 * Where a registry's Bearer challenge may send crigate for a token. The token request carries the
 * registry's configured credentials, so a realm is followed only on the registry's own site: its
 * host, or a host sharing its last two DNS labels (Docker Hub's {@code auth.docker.io} for
 * {@code registry-1.docker.io}, GitLab's {@code gitlab.com} for {@code registry.gitlab.com}), and
 * over https unless the registry itself is spoken to over plain http. Anything else is refused
 * before a byte is sent.
 */
final class TokenRealm {

  private TokenRealm() {}

  static URI check(ImageRef image, String realm, boolean registryPlainHttp) {
    URI uri;
    try {
      uri = new URI(realm);
    } catch (URISyntaxException e) {
      throw refused(image, realm, "it is not a URL");
    }
    String scheme = String.valueOf(uri.getScheme()).toLowerCase(Locale.ROOT);
    if (uri.getHost() == null || !scheme.equals("https") && !(scheme.equals("http") && registryPlainHttp)) {
      throw refused(image, realm, registryPlainHttp ? "it is not an http(s) URL" : "it is not an https URL");
    }
    String registryHost = URI.create("http://" + image.apiHost()).getHost();
    if (!sameSite(uri.getHost().toLowerCase(Locale.ROOT), registryHost.toLowerCase(Locale.ROOT))) {
      throw refused(image, realm, "it is not on the registry's own site, and the token request would carry the "
          + "registry's credentials there");
    }
    return uri;
  }

  private static boolean sameSite(String realmHost, String registryHost) {
    if (realmHost.equals(registryHost)) {
      return true;
    }
    if (isIpLiteral(realmHost) || isIpLiteral(registryHost)) {
      return false;
    }
    String site = lastTwoLabels(registryHost);
    return site.contains(".") && lastTwoLabels(realmHost).equals(site);
  }

  private static boolean isIpLiteral(String host) {
    return host.startsWith("[") || host.chars().allMatch(c -> Character.isDigit(c) || c == '.');
  }

  private static String lastTwoLabels(String host) {
    int last = host.lastIndexOf('.');
    int previous = last < 0 ? -1 : host.lastIndexOf('.', last - 1);
    return host.substring(previous + 1);
  }

  private static CrigateException.FailedPrecondition refused(ImageRef image, String realm, String why) {
    return new CrigateException.FailedPrecondition("registry %s names token realm %s; not followed: %s"
        .formatted(image.registry(), realm, why));
  }
}

package io.crigate.images;

import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Locale;
import java.util.Set;

/**
 * Where a registry's Bearer challenge may send crigate for a token. The token request carries the
 * registry's configured credentials, and the challenge is the registry's to write, so a realm is
 * followed only on the registry's own host (any port) or on a host the configuration allows
 * ({@link RegistryClientConfig#tokenRealms()}: {@code auth.docker.io} for Docker Hub by default),
 * and over https unless the registry itself is spoken to over plain http. Anything else is refused
 * before a byte is sent: a realm is otherwise a way to make crigate connect wherever a registry
 * says.
 */
final class TokenRealm {

  private TokenRealm() {}

  static URI check(ImageRef image, String realm, boolean registryPlainHttp, Set<String> allowedRealms) {
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
    String realmHost = uri.getHost().toLowerCase(Locale.ROOT);
    String registryHost = URI.create("http://" + image.apiHost()).getHost().toLowerCase(Locale.ROOT);
    if (!realmHost.equals(registryHost) && !allowed(uri, allowedRealms)) {
      throw refused(image, realm, "it is neither on the registry's own host nor on the token realm allow-list "
          + "(images.registry.tokenRealms), and the token request would carry the registry's credentials there");
    }
    return uri;
  }

  private static boolean allowed(URI realm, Set<String> allowedRealms) {
    String host = realm.getHost().toLowerCase(Locale.ROOT);
    return allowedRealms.stream().map(entry -> entry.toLowerCase(Locale.ROOT))
        .anyMatch(entry -> entry.equals(host) || realm.getPort() >= 0 && entry.equals(host + ":" + realm.getPort()));
  }

  private static CrigateException.FailedPrecondition refused(ImageRef image, String realm, String why) {
    return new CrigateException.FailedPrecondition("registry %s names token realm %s; not followed: %s"
        .formatted(image.registry(), realm, why));
  }
}

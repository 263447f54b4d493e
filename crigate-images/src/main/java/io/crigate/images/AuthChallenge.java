package io.crigate.images;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * A parsed {@code WWW-Authenticate} header: {@code Bearer realm="…",service="…",scope="…"} or
 * {@code Basic realm="…"}.
 *
 * @param scheme lower-cased scheme, {@code bearer} or {@code basic}
 */
record AuthChallenge(String scheme, Map<String, String> params) {

  private static final Pattern PARAM = Pattern.compile("([A-Za-z_]+)=(?:\"([^\"]*)\"|([^,\\s]*))");

  static AuthChallenge parse(String header) {
    String trimmed = header.strip();
    int space = trimmed.indexOf(' ');
    String scheme = (space < 0 ? trimmed : trimmed.substring(0, space)).toLowerCase(Locale.ROOT);
    var params = new HashMap<String, String>();
    if (space >= 0) {
      var matcher = PARAM.matcher(trimmed.substring(space + 1));
      while (matcher.find()) {
        params.put(matcher.group(1).toLowerCase(Locale.ROOT),
            matcher.group(2) != null ? matcher.group(2) : matcher.group(3));
      }
    }
    return new AuthChallenge(scheme, Map.copyOf(params));
  }

  boolean isBearer() {
    return scheme.equals("bearer") && params.containsKey("realm");
  }

  boolean isBasic() {
    return scheme.equals("basic");
  }

  String param(String name) {
    return params.getOrDefault(name, "");
  }
}

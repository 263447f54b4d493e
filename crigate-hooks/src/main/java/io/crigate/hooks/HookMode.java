package io.crigate.hooks;

import io.crigate.spi.CrigateException;
import java.util.Locale;

/** Where the hooks run; the seed's three modes, chosen by {@code hooks.mode}. */
public enum HookMode {
  /** In crigate's CRI request path, before forwarding: settings are in force from the first instant. */
  PROXY,
  /** Inside the runtime, through crigate's NRI plugin: in force from the first instant, no kubelet change. */
  NRI,
  /** After the fact: a reconciler watches the runtime and updates running containers. */
  STANDALONE;

  public static HookMode parse(String value) {
    try {
      return valueOf(value.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new CrigateException.InvalidArgument("hooks.mode '%s' is not one of proxy, nri, standalone".formatted(value));
    }
  }
}

package io.crigate.policy;

import io.crigate.spi.adjust.ContainerKey;

/** Container keys as policies store them, {@code ContainerKey.toString()}; container names hold no slash. */
final class ContainerKeys {

  private ContainerKeys() {}

  static ContainerKey parse(String text) {
    int last = text.lastIndexOf('/');
    int middle = text.lastIndexOf('/', last - 1);
    return new ContainerKey(text.substring(0, middle), text.substring(middle + 1, last), Integer.parseInt(text.substring(last + 1)));
  }
}

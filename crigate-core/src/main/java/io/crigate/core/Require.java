package io.crigate.core;

import io.crigate.spi.CrigateException;

/** Request checks done before any backend is called, each naming the CRI field at fault. */
final class Require {

  private Require() {}

  /** @return {@code value}, when it is a non-blank id */
  static String id(String field, String value) {
    if (value == null || value.isBlank()) {
      throw new CrigateException.InvalidArgument(field + " is required");
    }
    return value;
  }

  static void present(boolean present, String field) {
    if (!present) {
      throw new CrigateException.InvalidArgument(field + " is required");
    }
  }
}

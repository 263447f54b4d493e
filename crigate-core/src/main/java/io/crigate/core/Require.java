package io.crigate.core;

import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;

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

  /**
   * @return {@code value}, when it is an image reference a registry can be asked for; otherwise
   *     INVALID_ARGUMENT with what is wrong, rather than whatever error the runtime would pass back
   */
  static String imageReference(String field, String value) {
    id(field, value);
    try {
      ImageRef.parse(value);
      return value;
    } catch (CrigateException.InvalidArgument e) {
      throw new CrigateException.InvalidArgument(field + ": " + e.getMessage());
    }
  }

  static void present(boolean present, String field) {
    if (!present) {
      throw new CrigateException.InvalidArgument(field + " is required");
    }
  }
}

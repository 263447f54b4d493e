package io.crigate.interlink.node;

import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;

/**
 * A JSON patch that sets an object's whole status ("add" replaces a member that exists and works
 * where none does). It carries no resourceVersion, so a status write never conflicts with the
 * annotation or spec writes of other threads; and unlike a merge patch it cannot leave a
 * container's old state beside its new one.
 */
final class StatusPatch {

  private StatusPatch() {}

  static String replace(Object status) {
    return Serialization.asJson(List.of(Map.of("op", "add", "path", "/status", "value", status)));
  }
}

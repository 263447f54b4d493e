package io.crigate.hooks;

import io.crigate.spi.CrigateException;
import java.util.Map;

/** Koordinator's QoS classes, read from the pod label {@code koordinator.sh/qosClass}. */
enum KoordQosClass {
  LSE, LSR, LS, BE, SYSTEM,
  /** No label: the hooks leave the pod to the kubelet's own QoS. */
  NONE;

  static KoordQosClass of(Map<String, String> labels) {
    String value = labels.get(KoordinatorKeys.QOS_CLASS_LABEL);
    if (value == null || value.isEmpty()) {
      return NONE;
    }
    return switch (value) {
      case "LSE" -> LSE;
      case "LSR" -> LSR;
      case "LS" -> LS;
      case "BE" -> BE;
      case "SYSTEM" -> SYSTEM;
      default -> throw new CrigateException.InvalidArgument("label %s=%s is not one of LSE, LSR, LS, BE, SYSTEM"
          .formatted(KoordinatorKeys.QOS_CLASS_LABEL, value));
    };
  }
}

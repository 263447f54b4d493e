package io.crigate.hooks;

import java.util.Map;

/** Test pods and containers with the labels and annotations a case needs. */
final class Pods {

  private Pods() {}

  static PodContext pod(Map<String, String> labels, Map<String, String> annotations) {
    return new PodContext("", "p", "ns", "uid-1", labels, annotations, "");
  }

  static ContainerContext container(String name, Map<String, String> labels, Map<String, String> annotations) {
    return new ContainerContext(pod(labels, annotations), "", name, Map.of(), Resources.NONE);
  }

  static Map<String, String> qos(String qosClass) {
    return Map.of(KoordinatorKeys.QOS_CLASS_LABEL, qosClass);
  }
}

package io.crigate.hooks;

import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.ContainerKey;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import io.crigate.spi.adjust.QosClass;
import io.crigate.spi.adjust.ResourceRequirements;
import java.util.Map;

/** Test pods and containers with the labels and annotations a case needs. */
final class Pods {

  private Pods() {}

  static PodContext pod(Map<String, String> labels, Map<String, String> annotations) {
    return new PodContext("", "p", "ns", "uid-1", QosClass.BEST_EFFORT, labels, annotations, "", "",
        ResourceRequirements.NONE, Map.of());
  }

  static ContainerContext container(String name) {
    return new ContainerContext(new ContainerKey("", name, 0), "", Map.of(), Map.of(), Map.of(),
        ResourceRequirements.NONE, LinuxResources.NONE);
  }

  static Map<String, String> qos(String qosClass) {
    return Map.of(KoordinatorKeys.QOS_CLASS_LABEL, qosClass);
  }
}

package io.crigate.interlink;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** v1.Pod objects as the virtual kubelet hands them over: uid set, unique names, one shell container. */
public final class TestPods {

  private TestPods() {}

  public static Pod shell(String prefix, String script) {
    return shell(prefix, script, Map.of());
  }

  public static Pod shell(String prefix, String script, Map<String, String> annotations) {
    String uid = UUID.randomUUID().toString();
    return new PodBuilder().withNewMetadata().withName(prefix + "-" + uid.substring(0, 8)).withNamespace("it")
        .withUid(uid).withAnnotations(annotations).endMetadata()
        .withNewSpec().withTerminationGracePeriodSeconds(2L).addNewContainer().withName("main").withImage("busybox")
        .withCommand(List.of("/bin/sh", "-c", script)).endContainer().endSpec().build();
  }
}

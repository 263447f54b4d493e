package io.crigate.scheduler.extender;

import io.crigate.spi.CrigateException.InvalidArgument;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.RoundingMode;
import java.util.Map;

/**
 * The CPU a pod requests as kube-scheduler counts it when it fits pods onto nodes: the regular
 * containers and restartable init containers (sidecars) run together, each other init container
 * runs alone next to the sidecars started before it, so the pod needs the larger of the two sums;
 * pod-level requests, where set, replace the containers' sum; the runtime class overhead comes on
 * top.
 */
final class PodCpu {

  private static final String CPU = "cpu";

  private PodCpu() {}

  static long millis(PodSpec spec) {
    long running = 0;
    long sidecars = 0;
    long initPeak = 0;
    for (Container init : spec.getInitContainers()) {
      long request = millis(init.getResources());
      if ("Always".equals(init.getRestartPolicy())) {
        running += request;
        sidecars += request;
        initPeak = Math.max(initPeak, sidecars);
      } else {
        initPeak = Math.max(initPeak, sidecars + request);
      }
    }
    for (Container container : spec.getContainers()) {
      running += millis(container.getResources());
    }
    long pod = Math.max(running, initPeak);
    if (spec.getResources() != null && spec.getResources().getRequests() != null
        && spec.getResources().getRequests().containsKey(CPU)) {
      pod = millis(spec.getResources());
    }
    return pod + millis(spec.getOverhead());
  }

  private static long millis(ResourceRequirements resources) {
    return resources == null ? 0 : millis(resources.getRequests());
  }

  /** Rounded up to whole millicores, as Kubernetes' {@code MilliValue} does. */
  static long millis(Map<String, Quantity> resources) {
    Quantity cpu = resources == null ? null : resources.get(CPU);
    if (cpu == null) {
      return 0;
    }
    try {
      return Quantity.getAmountInBytes(cpu).movePointRight(3).setScale(0, RoundingMode.CEILING).longValueExact();
    } catch (IllegalArgumentException | ArithmeticException e) {
      // the API server never stores such a quantity, but the extender answers any client
      throw new InvalidArgument("CPU quantity %s is not a number of cores: %s".formatted(cpu, e.getMessage()));
    }
  }
}

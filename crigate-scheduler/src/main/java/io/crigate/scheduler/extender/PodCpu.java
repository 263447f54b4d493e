package io.crigate.scheduler.extender;

import io.crigate.spi.CrigateException.InvalidArgument;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import java.math.RoundingMode;
import java.util.List;
import java.util.Map;

/**
 * The CPU a pod requests as kube-scheduler counts it when it fits pods onto nodes: the regular
 * containers and restartable init containers (sidecars) run together, each other init container
 * runs alone next to the sidecars started before it, so the pod needs the larger of the two sums;
 * pod-level requests, where set, replace the containers' sum; the runtime class overhead comes on
 * top.
 *
 * <p>Two readers share the rule: the informer's pods (fabric8 objects) and the extender's request,
 * which is streamed and reduces each container to a {@link ContainerCpu}.
 */
final class PodCpu {

  private static final String CPU = "cpu";
  /** {@code restartPolicy} of an init container that keeps running beside the containers. */
  static final String SIDECAR_RESTART_POLICY = "Always";

  /** What the rule reads of one container: its CPU request and whether it is a sidecar. */
  record ContainerCpu(long millis, boolean sidecar) {}

  private PodCpu() {}

  static long millis(PodSpec spec) {
    Long podLevel = spec.getResources() != null && spec.getResources().getRequests() != null
        && spec.getResources().getRequests().containsKey(CPU) ? millis(spec.getResources()) : null;
    return millis(spec.getInitContainers().stream().map(PodCpu::cpu).toList(),
        spec.getContainers().stream().map(PodCpu::cpu).toList(), podLevel, millis(spec.getOverhead()));
  }

  /**
   * @param podLevel the pod-level CPU request, null when the pod sets none
   * @param overhead the runtime class overhead's CPU, 0 when none
   */
  static long millis(List<ContainerCpu> initContainers, List<ContainerCpu> containers, Long podLevel, long overhead) {
    long running = 0;
    long sidecars = 0;
    long initPeak = 0;
    for (ContainerCpu init : initContainers) {
      if (init.sidecar()) {
        running += init.millis();
        sidecars += init.millis();
        initPeak = Math.max(initPeak, sidecars);
      } else {
        initPeak = Math.max(initPeak, sidecars + init.millis());
      }
    }
    for (ContainerCpu container : containers) {
      running += container.millis();
    }
    long pod = podLevel != null ? podLevel : Math.max(running, initPeak);
    return pod + overhead;
  }

  private static ContainerCpu cpu(Container container) {
    return new ContainerCpu(millis(container.getResources()), SIDECAR_RESTART_POLICY.equals(container.getRestartPolicy()));
  }

  private static long millis(ResourceRequirements resources) {
    return resources == null ? 0 : millis(resources.getRequests());
  }

  /** Rounded up to whole millicores, as Kubernetes' {@code MilliValue} does. */
  static long millis(Map<String, Quantity> resources) {
    return resources == null ? 0 : millis(resources.get(CPU));
  }

  /** A quantity as written in JSON, e.g. {@code "250m"}. */
  static long millis(String cpu) {
    Quantity quantity;
    try {
      quantity = new Quantity(cpu);
    } catch (IllegalArgumentException e) {
      throw new InvalidArgument("CPU quantity %s is not a number of cores: %s".formatted(cpu, e.getMessage()));
    }
    return millis(quantity);
  }

  /** 0 for none; rounded up to whole millicores, as Kubernetes' {@code MilliValue} does. */
  static long millis(Quantity cpu) {
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

package io.crigate.hooks;

import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PodContext;
import java.util.Set;

/**
 * One runtime hook: reads the pod (and container) context at the stages it names and returns the
 * adjustment it wants. Hooks are pure functions of their context and settings: they never touch
 * the runtime or the host, so a hook gives the same answer in proxy, NRI and standalone mode and
 * only the door that applies the answer differs.
 *
 * <p>At a pod stage the adjustment's resources are for the pod's cgroup (its cgroup parent); at a
 * container stage, for the container. A hook that cannot read its input (a malformed annotation)
 * throws {@link io.crigate.spi.CrigateException.InvalidArgument} naming the key; its {@link
 * FailurePolicy} then decides whether the call fails or the hook is skipped.
 */
public interface Hook {

  /** The name in configuration and logs, e.g. {@code BatchResource}. */
  String name();

  Set<Stage> stages();

  default Adjustment onPod(Stage stage, PodContext pod) {
    return Adjustment.NONE;
  }

  default Adjustment onContainer(Stage stage, PodContext pod, ContainerContext container) {
    return Adjustment.NONE;
  }
}

package io.crigate.hooks;

import java.util.Set;

/**
 * One runtime hook: reads a pod or container context at the stages it names and returns the
 * changes it wants. Hooks are pure functions of their context and their own settings: they never
 * touch the runtime or the host themselves, so the same hook gives the same answer in proxy, NRI
 * and standalone mode and only the applier differs.
 *
 * <p>A hook that cannot read its input (a malformed annotation) throws {@link
 * io.crigate.spi.CrigateException.InvalidArgument} naming the key; its {@link FailurePolicy} then
 * decides whether the call fails or the hook is skipped.
 */
public interface Hook {

  /** The name in configuration and logs, e.g. {@code BatchResource}. */
  String name();

  Set<Stage> stages();

  default Changes onPod(Stage stage, PodContext pod) {
    return Changes.none();
  }

  default Changes onContainer(Stage stage, ContainerContext container) {
    return Changes.none();
  }
}

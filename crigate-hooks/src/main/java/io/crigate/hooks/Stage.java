package io.crigate.hooks;

import io.crigate.spi.CrigateException;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Koordinator's runtime hook stages, under the names its runtime proxy configuration uses, so a
 * Koordinator hook list reads the same here. Pod stages see a {@link PodContext}; container stages
 * a {@link ContainerContext}.
 */
public enum Stage {
  PRE_RUN_POD_SANDBOX("PreRunPodSandbox", true),
  POST_STOP_POD_SANDBOX("PostStopPodSandbox", true),
  PRE_REMOVE_POD_SANDBOX("PreRemovePodSandbox", true),
  PRE_CREATE_CONTAINER("PreCreateContainer", false),
  PRE_START_CONTAINER("PreStartContainer", false),
  POST_START_CONTAINER("PostStartContainer", false),
  PRE_UPDATE_CONTAINER_RESOURCES("PreUpdateContainerResources", false),
  POST_STOP_CONTAINER("PostStopContainer", false);

  /**
   * Every stage at which the pod's or a container's cgroup resources are set: a hook that owns a
   * resource (batch quota, cpuset) answers at all of them, so an update cannot undo its value.
   */
  static final Set<Stage> RESOURCE_STAGES = Set.of(PRE_RUN_POD_SANDBOX, PRE_CREATE_CONTAINER, PRE_UPDATE_CONTAINER_RESOURCES);

  /** Koordinator spells this stage PreRemoveRunPodSandbox in its runtime proxy config. */
  private static final String KOORDINATOR_REMOVE_ALIAS = "PreRemoveRunPodSandbox";

  private final String configName;
  private final boolean podLevel;

  Stage(String configName, boolean podLevel) {
    this.configName = configName;
    this.podLevel = podLevel;
  }

  public String configName() {
    return configName;
  }

  public boolean podLevel() {
    return podLevel;
  }

  /** Parses a stage name as written in configuration; an unknown name is an error listing the known ones. */
  public static Stage parse(String name) {
    if (KOORDINATOR_REMOVE_ALIAS.equals(name)) {
      return PRE_REMOVE_POD_SANDBOX;
    }
    return Arrays.stream(values()).filter(s -> s.configName.equals(name)).findFirst()
        .orElseThrow(() -> new CrigateException.InvalidArgument("unknown hook stage '%s'; known: %s".formatted(name,
            Arrays.stream(values()).map(Stage::configName).collect(Collectors.joining(", ")))));
  }
}

package io.crigate.spi.adjust;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Set;

/**
 * The events a plugin can subscribe to, in the order a container lives through them. "Before"
 * events run before the runtime acts and may change the object; "after" events report what
 * happened and may only update other containers. NRI's event mask maps onto this one to one.
 */
public enum LifecycleEvent {
  RUN_POD_SANDBOX,
  STOP_POD_SANDBOX,
  REMOVE_POD_SANDBOX,
  CREATE_CONTAINER,
  POST_CREATE_CONTAINER,
  START_CONTAINER,
  POST_START_CONTAINER,
  UPDATE_CONTAINER_RESOURCES,
  POST_UPDATE_CONTAINER_RESOURCES,
  STOP_CONTAINER,
  REMOVE_CONTAINER,
  /** The kubelet resizes the pod (CRI UpdatePodSandboxResources); before the runtime acts. */
  UPDATE_POD_SANDBOX_RESOURCES,
  POST_UPDATE_POD_SANDBOX_RESOURCES;

  /** Every event, shared and read-only: what a plugin wants unless it says otherwise, asked per call. */
  public static final Set<LifecycleEvent> ALL = Collections.unmodifiableSet(EnumSet.allOf(LifecycleEvent.class));
}

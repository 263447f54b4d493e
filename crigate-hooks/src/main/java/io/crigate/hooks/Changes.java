package io.crigate.hooks;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What hooks return: resource settings and environment variables to add or replace. At a pod stage
 * the resources are the pod's cgroup (its cgroup parent); at a container stage, the container's.
 */
public record Changes(Resources resources, Map<String, String> env) {

  private static final Changes NONE = new Changes(Resources.NONE, Map.of());

  public Changes {
    env = Map.copyOf(env);
  }

  public static Changes none() {
    return NONE;
  }

  public static Changes of(Resources resources) {
    return new Changes(resources, Map.of());
  }

  public static Changes ofEnv(Map<String, String> env) {
    return new Changes(Resources.NONE, env);
  }

  public boolean isEmpty() {
    return resources.isEmpty() && env.isEmpty();
  }

  /** Ours followed by {@code later}: where both set a value, the later one wins (hook order). */
  public Changes then(Changes later) {
    if (later.isEmpty()) {
      return this;
    }
    Map<String, String> merged = new LinkedHashMap<>(env);
    merged.putAll(later.env);
    return new Changes(resources.then(later.resources), merged);
  }
}

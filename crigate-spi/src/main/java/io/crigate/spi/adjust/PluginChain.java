package io.crigate.spi.adjust;

import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The adjustment engine: calls its plugins in order for each event and merges their answers, the
 * rule NRI applies to its plugins. Every plugin sees the event as the caller sent it, not as an
 * earlier plugin changed it; two plugins setting the same field (the same env variable, annotation,
 * resource field, or field of an update to the same container) is an error naming both, whether or
 * not the values agree, because which one should win is a configuration decision, not ours.
 *
 * <p>Calls are serialized: placement decisions must see each other's effects. A plugin's update to
 * the very container the event is about is folded into the adjustment (NRI's UpdateContainer does
 * the same), so it conflicts with another plugin's adjustment of that field.
 */
public final class PluginChain implements AutoCloseable {

  private final List<AdjustmentPlugin> plugins;
  private final ReentrantLock lock = new ReentrantLock();

  public PluginChain(List<AdjustmentPlugin> plugins) {
    Set<String> names = new HashSet<>();
    for (AdjustmentPlugin plugin : plugins) {
      if (!names.add(plugin.name())) {
        throw new CrigateException.InvalidArgument("adjustment plugin '%s' is configured twice".formatted(plugin.name()));
      }
    }
    this.plugins = List.copyOf(plugins);
  }

  public static PluginChain empty() {
    return new PluginChain(List.of());
  }

  public List<AdjustmentPlugin> plugins() {
    return plugins;
  }

  public boolean isEmpty() {
    return plugins.isEmpty();
  }

  /** True if some plugin wants {@code event}; a door may skip building contexts otherwise. */
  public boolean wants(LifecycleEvent event) {
    return plugins.stream().anyMatch(plugin -> plugin.events().contains(event));
  }

  public List<ContainerUpdate> synchronize(List<PodContext> pods, List<ContainerContext> containers) {
    return locked(() -> {
      Merge merge = new Merge("Synchronize", () -> "", "");
      for (AdjustmentPlugin plugin : plugins) {
        merge.add(plugin.name(), PluginResult.update(call(plugin, "Synchronize", p -> p.synchronize(pods, containers))));
      }
      return merge.result().updates();
    });
  }

  public PluginResult runPodSandbox(PodContext pod) {
    return run(LifecycleEvent.RUN_POD_SANDBOX, () -> pod(pod), "", p -> p.runPodSandbox(pod));
  }

  public PluginResult stopPodSandbox(PodContext pod) {
    return run(LifecycleEvent.STOP_POD_SANDBOX, () -> pod(pod), "", p -> p.stopPodSandbox(pod));
  }

  public PluginResult removePodSandbox(PodContext pod) {
    return run(LifecycleEvent.REMOVE_POD_SANDBOX, () -> pod(pod), "", p -> p.removePodSandbox(pod));
  }

  public PluginResult updatePodSandboxResources(PodContext pod, LinuxResources overhead, LinuxResources resources) {
    return run(LifecycleEvent.UPDATE_POD_SANDBOX_RESOURCES, () -> pod(pod), "",
        p -> p.updatePodSandboxResources(pod, overhead, resources));
  }

  public PluginResult postUpdatePodSandboxResources(PodContext pod) {
    return run(LifecycleEvent.POST_UPDATE_POD_SANDBOX_RESOURCES, () -> pod(pod), "", p -> p.postUpdatePodSandboxResources(pod));
  }

  public PluginResult createContainer(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.CREATE_CONTAINER, () -> container(container), container.id(), p -> p.createContainer(pod, container));
  }

  public PluginResult postCreateContainer(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.POST_CREATE_CONTAINER, () -> container(container), "", p -> p.postCreateContainer(pod, container));
  }

  public PluginResult startContainer(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.START_CONTAINER, () -> container(container), container.id(), p -> p.startContainer(pod, container));
  }

  public PluginResult postStartContainer(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.POST_START_CONTAINER, () -> container(container), "", p -> p.postStartContainer(pod, container));
  }

  public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
    return run(LifecycleEvent.UPDATE_CONTAINER_RESOURCES, () -> container(container), container.id(),
        p -> p.updateContainerResources(pod, container, requested));
  }

  public PluginResult postUpdateContainerResources(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.POST_UPDATE_CONTAINER_RESOURCES, () -> container(container), "", p -> p.postUpdateContainerResources(pod, container));
  }

  public PluginResult stopContainer(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.STOP_CONTAINER, () -> container(container), "", p -> p.stopContainer(pod, container));
  }

  public PluginResult removeContainer(PodContext pod, ContainerContext container) {
    return run(LifecycleEvent.REMOVE_CONTAINER, () -> container(container), "", p -> p.removeContainer(pod, container));
  }

  /** Closes every plugin, last first; failures are collected, not short-circuited. */
  @Override
  public void close() {
    RuntimeException failure = null;
    for (AdjustmentPlugin plugin : plugins.reversed()) {
      try {
        plugin.close();
      } catch (Exception e) {
        if (failure == null) {
          failure = new IllegalStateException("closing adjustment plugins failed");
        }
        failure.addSuppressed(e);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /**
   * @param subject the object of the event, for messages
   * @param subjectId the id of the container the event is about, whose updates fold into the
   *     adjustment; empty when there is none or it is not adjustable any more
   */
  private PluginResult run(LifecycleEvent event, Supplier<String> subject, String subjectId,
      Function<AdjustmentPlugin, PluginResult> call) {
    if (plugins.isEmpty()) {
      return PluginResult.NONE;
    }
    String eventName = EVENT_NAMES.get(event);
    return locked(() -> {
      List<String> answered = new ArrayList<>(plugins.size());
      List<PluginResult> answers = new ArrayList<>(plugins.size());
      for (AdjustmentPlugin plugin : plugins) {
        if (plugin.events().contains(event)) {
          PluginResult answer = call(plugin, eventName, call);
          if (!answer.isEmpty()) {
            answered.add(plugin.name());
            answers.add(answer);
          }
        }
      }
      if (answers.isEmpty()) {
        return PluginResult.NONE;
      }
      if (answers.size() == 1 && standsAlone(answers.getFirst(), subjectId)) {
        return answers.getFirst();
      }
      Merge merge = new Merge(eventName, subject, subjectId);
      for (int i = 0; i < answers.size(); i++) {
        merge.add(answered.get(i), answers.get(i));
      }
      return merge.result();
    });
  }

  /**
   * Whether one plugin's answer is already what merging it would give: none of its updates is for
   * the event's own container (those fold into the adjustment) and no container gets two updates
   * (which may set a field twice). The usual case, one policy answering, then skips the per-field
   * bookkeeping, which only matters when answers meet.
   */
  private static boolean standsAlone(PluginResult answer, String subjectId) {
    List<ContainerUpdate> updates = answer.updates();
    if (updates.isEmpty()) {
      return true;
    }
    Set<String> ids = new HashSet<>();
    for (ContainerUpdate update : updates) {
      if (update.containerId().equals(subjectId) || !ids.add(update.containerId())) {
        return false;
      }
    }
    return true;
  }

  private <T> T locked(Supplier<T> work) {
    lock.lock();
    try {
      return work.get();
    } finally {
      lock.unlock();
    }
  }

  private static <T> T call(AdjustmentPlugin plugin, String event, Function<AdjustmentPlugin, T> call) {
    T result;
    try {
      result = call.apply(plugin);
    } catch (CrigateException e) {
      throw e;
    } catch (RuntimeException e) {
      throw new IllegalStateException("adjustment plugin %s failed in %s: %s".formatted(plugin.name(), event, e), e);
    }
    if (result == null) {
      throw new IllegalStateException("adjustment plugin %s returned no result for %s".formatted(plugin.name(), event));
    }
    return result;
  }

  private static String pod(PodContext pod) {
    return "pod %s/%s".formatted(pod.namespace(), pod.name());
  }

  private static String container(ContainerContext container) {
    return "container " + (container.id().isEmpty() ? container.key().toString() : container.id());
  }

  /** CRI's and NRI's spelling of each event, for messages: CREATE_CONTAINER is CreateContainer. */
  private static final Map<LifecycleEvent, String> EVENT_NAMES = eventNames();

  private static Map<LifecycleEvent, String> eventNames() {
    Map<LifecycleEvent, String> names = new EnumMap<>(LifecycleEvent.class);
    for (LifecycleEvent event : LifecycleEvent.values()) {
      StringBuilder name = new StringBuilder();
      for (String word : event.name().split("_")) {
        name.append(word.charAt(0)).append(word.substring(1).toLowerCase(Locale.ROOT));
      }
      names.put(event, name.toString());
    }
    return names;
  }

  /** Folds plugin results together, remembering which plugin set each field. */
  private static final class Merge {
    private final String event;
    private final Supplier<String> subject;
    private final String subjectId;
    private final FieldOwners adjustment = new FieldOwners();
    private final Map<String, FieldOwners> updates = new LinkedHashMap<>();
    private final Map<String, Boolean> ignoreFailure = new HashMap<>();

    Merge(String event, Supplier<String> subject, String subjectId) {
      this.event = event;
      this.subject = subject;
      this.subjectId = subjectId;
    }

    void add(String plugin, PluginResult result) {
      adjustment.add(plugin, result.adjustment().fields(), () -> "%s of %s".formatted(event, subject.get()));
      for (ContainerUpdate update : result.updates()) {
        if (!subjectId.isEmpty() && update.containerId().equals(subjectId)) {
          adjustment.add(plugin, update.resources().fields(), () -> "%s of %s".formatted(event, subject.get()));
          continue;
        }
        updates.computeIfAbsent(update.containerId(), id -> new FieldOwners())
            .add(plugin, update.resources().fields(), () -> "update of container %s in %s".formatted(update.containerId(), event));
        // Any plugin that needs the update to succeed makes it required.
        ignoreFailure.merge(update.containerId(), update.ignoreFailure(), Boolean::logicalAnd);
      }
    }

    PluginResult result() {
      List<ContainerUpdate> merged = new ArrayList<>();
      updates.forEach((id, fields) -> merged.add(
          new ContainerUpdate(id, LinuxResources.fromFields(fields.values), ignoreFailure.get(id))));
      return new PluginResult(Adjustment.fromFields(adjustment.values), merged);
    }
  }

  private static final class FieldOwners {
    final Map<String, Object> values = new LinkedHashMap<>();
    final Map<String, String> owners = new HashMap<>();

    void add(String plugin, Map<String, Object> fields, Supplier<String> where) {
      fields.forEach((field, value) -> {
        String owner = owners.putIfAbsent(field, plugin);
        if (plugin.equals(owner)) {
          throw new IllegalStateException("adjustment plugin %s sets %s twice in %s".formatted(plugin, field, where.get()));
        }
        if (owner != null) {
          throw new CrigateException.FailedPrecondition("adjustment plugins %s and %s both set %s in %s"
              .formatted(owner, plugin, field, where.get()));
        }
        values.put(field, value);
      });
    }
  }
}

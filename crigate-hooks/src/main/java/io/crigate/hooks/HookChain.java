package io.crigate.hooks;

import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.PodContext;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registered hooks of one configuration, ordered, indexed by stage. Immutable: a live
 * configuration change builds a new chain and swaps it in whole, so a call never sees half of an
 * old and half of a new hook list.
 */
public final class HookChain {

  private static final Logger log = LoggerFactory.getLogger(HookChain.class);

  private final List<HookRegistration> registrations;
  private final Map<Stage, List<HookRegistration>> byStage = new EnumMap<>(Stage.class);

  public HookChain(List<HookRegistration> registrations) {
    this.registrations = registrations.stream()
        .sorted(Comparator.comparingInt(HookRegistration::order).thenComparing(r -> r.hook().name()))
        .toList();
    for (Stage stage : Stage.values()) {
      byStage.put(stage, this.registrations.stream().filter(r -> r.hook().stages().contains(stage)).toList());
    }
    long names = this.registrations.stream().map(r -> r.hook().name()).distinct().count();
    if (names != this.registrations.size()) {
      throw new CrigateException.InvalidArgument("hook names must be unique, got "
          + this.registrations.stream().map(r -> r.hook().name()).toList());
    }
  }

  public static HookChain empty() {
    return new HookChain(List.of());
  }

  public List<HookRegistration> registrations() {
    return registrations;
  }

  public boolean handles(Stage stage) {
    return !byStage.get(stage).isEmpty();
  }

  /** Runs the hooks of a pod stage in order. */
  public Adjustment runPod(Stage stage, PodContext pod) {
    requireLevel(stage, true);
    return run(stage, ref(pod), hook -> hook.onPod(stage, pod));
  }

  /** Runs the hooks of a container stage in order. */
  public Adjustment runContainer(Stage stage, PodContext pod, ContainerContext container) {
    requireLevel(stage, false);
    return run(stage, ref(pod) + "/" + container.name(), hook -> hook.onContainer(stage, pod, container));
  }

  private Adjustment run(Stage stage, String target, Function<Hook, Adjustment> call) {
    Adjustment result = Adjustment.NONE;
    for (HookRegistration registration : byStage.get(stage)) {
      Hook hook = registration.hook();
      try {
        result = Adjustments.then(result, call.apply(hook));
      } catch (RuntimeException e) {
        if (registration.failurePolicy() == FailurePolicy.FAIL_CLOSED) {
          throw rejection(hook, stage, target, e);
        }
        log.warn("hook {} skipped at {} for {} (fail-open): {}", hook.name(), stage.configName(), target,
            e.getMessage());
      }
    }
    return result;
  }

  /** A hook's own error kind is kept (a bad annotation stays INVALID_ARGUMENT); anything else is a hook fault. */
  private static CrigateException rejection(Hook hook, Stage stage, String target, RuntimeException e) {
    String message = "hook %s rejected %s at %s: %s".formatted(hook.name(), target, stage.configName(), e.getMessage());
    if (e instanceof CrigateException.InvalidArgument) {
      return new CrigateException.InvalidArgument(message);
    }
    log.error("hook {} failed at {} for {}", hook.name(), stage.configName(), target, e);
    return new CrigateException.FailedPrecondition(message);
  }

  private static String ref(PodContext pod) {
    return pod.namespace() + "/" + pod.name();
  }

  private static void requireLevel(Stage stage, boolean pod) {
    if (stage.podLevel() != pod) {
      throw new IllegalArgumentException(stage + " is not a " + (pod ? "pod" : "container") + " stage");
    }
  }
}

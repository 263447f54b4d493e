package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.Durations;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;

/**
 * The {@code hooks} section of the configuration, the same for every mode:
 *
 * <pre>
 * hooks:
 *   mode: proxy            # proxy | nri | standalone
 *   configFile: /etc/crigate/hooks.yaml   # optional: its keys override these, re-read on change
 *   resync: 10s            # standalone: full ListContainers pass, also when events are missing
 *   QoSClass:        {order: 100, failurePolicy: fail-open, classes: {BE: {cpuShares: 2, oomScoreAdj: 1000}}}
 *   BatchResource:   {order: 200, failurePolicy: fail-open, cfsQuota: true}
 *   CPUSetAllocator: {order: 300, failurePolicy: fail-closed}
 *   GPUEnvInject:    {order: 400, failurePolicy: fail-closed, hamiCoreLibraryPath: /usr/local/vgpu/libvgpu.so}
 * </pre>
 *
 * Every built-in hook is on unless its section says {@code enabled: false}. A key a hook's section
 * does not know is refused, naming it and the section.
 *
 * @param mode where the hooks run
 * @param chain the hooks, ordered
 * @param resync how often standalone mode walks every container regardless of events
 */
public record HookSettings(HookMode mode, HookChain chain, Duration resync) {

  public static final Duration DEFAULT_RESYNC = Duration.ofSeconds(10);

  /** The live overlay file, read by the composition root, which hands the merged section back here. */
  public static final String CONFIG_FILE = "configFile";

  private static final Set<String> SETTINGS = Set.of("mode", "resync", CONFIG_FILE);

  /** The keys every hook's section may have. */
  private static final Set<String> HOOK_KEYS = Set.of("enabled", "order", "failurePolicy");

  /** @param keys the keys of its own its section may have, besides {@link #HOOK_KEYS} */
  private record BuiltIn(int order, FailurePolicy failurePolicy, Set<String> keys, Function<JsonNode, Hook> factory) {}

  /** Name → default place, default policy, factory: one explicit map, no scanning (STYLE §2). */
  private static final Map<String, BuiltIn> BUILT_INS = builtIns();

  private static Map<String, BuiltIn> builtIns() {
    Map<String, BuiltIn> m = new LinkedHashMap<>();
    m.put(QosClassHook.NAME, new BuiltIn(100, FailurePolicy.FAIL_OPEN, Set.of("classes"), QosClassHook::fromSettings));
    m.put(BatchResourceHook.NAME, new BuiltIn(200, FailurePolicy.FAIL_OPEN, Set.of("cfsQuota"),
        BatchResourceHook::fromSettings));
    // a pod the scheduler pinned must not run unpinned, and a GPU job must not see the wrong devices
    m.put(CpusetAllocatorHook.NAME, new BuiltIn(300, FailurePolicy.FAIL_CLOSED, Set.of(), s -> new CpusetAllocatorHook()));
    m.put(GpuAllocationHook.NAME, new BuiltIn(400, FailurePolicy.FAIL_CLOSED, Set.of(HamiCore.SETTING),
        GpuAllocationHook::fromSettings));
    return m;
  }

  /** Parses the section; a missing or null section means proxy mode with every built-in hook. */
  public static HookSettings parse(JsonNode section) {
    if (section != null && !section.isMissingNode() && !section.isNull() && !section.isObject()) {
      throw new CrigateException.InvalidArgument("hooks must be a mapping");
    }
    JsonNode s = section == null ? MissingNode.getInstance() : section;
    HookMode mode = s.has("mode") ? HookMode.parse(s.get("mode").asText()) : HookMode.PROXY;
    Duration resync = s.has("resync") ? Durations.positive("hooks.resync", s.get("resync").asText()) : DEFAULT_RESYNC;
    for (Iterator<String> it = s.fieldNames(); it.hasNext(); ) {
      String key = it.next();
      if (!SETTINGS.contains(key) && !BUILT_INS.containsKey(key)) {
        throw new CrigateException.InvalidArgument("hooks.%s is not a setting or a hook; hooks are %s"
            .formatted(key, BUILT_INS.keySet()));
      }
    }
    List<HookRegistration> registrations = new ArrayList<>();
    BUILT_INS.forEach((name, builtIn) -> {
      JsonNode h = s.path(name);
      requireKnownKeys(name, h, builtIn.keys());
      if (!h.path("enabled").asBoolean(true)) {
        return;
      }
      int order = h.has("order") ? (int) SettingsFields.longIn(h, "order", Integer.MIN_VALUE, Integer.MAX_VALUE, "hooks." + name)
          : builtIn.order();
      FailurePolicy policy = h.has("failurePolicy") ? failurePolicy(name, h.get("failurePolicy").asText())
          : builtIn.failurePolicy();
      registrations.add(new HookRegistration(builtIn.factory().apply(h), order, policy));
    });
    return new HookSettings(mode, new HookChain(registrations), resync);
  }

  /** A hook's section is a mapping of its own keys: a misspelt key would otherwise be a setting silently not in force. */
  private static void requireKnownKeys(String hook, JsonNode section, Set<String> own) {
    if (section.isMissingNode() || section.isNull()) {
      return;
    }
    Set<String> known = new TreeSet<>(HOOK_KEYS);
    known.addAll(own);
    SettingsFields.requireKeys(section, known, "hooks." + hook, "hook " + hook);
  }

  /** The policy of one hook, a bad value named by its path (a runtime's drop-in has no line numbers). */
  private static FailurePolicy failurePolicy(String hook, String value) {
    try {
      return FailurePolicy.parse(value);
    } catch (CrigateException.InvalidArgument e) {
      throw new CrigateException.InvalidArgument("hooks.%s.failurePolicy: %s".formatted(hook, e.getMessage()));
    }
  }
}

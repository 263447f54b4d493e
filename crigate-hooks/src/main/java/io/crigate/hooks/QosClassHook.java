package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.LinuxResources;
import io.crigate.spi.adjust.PodContext;
import java.util.EnumMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Maps the pod's Koordinator QoS class to container settings: CPU shares, an OOM score adjustment
 * and a cpuset pool. Koordinator spreads this over several hooks (group identity, cpuset pools,
 * OOM) that lean on kernel features most hosts lack (bvt); these three settings are what a stock
 * kernel can enforce for the same intent. Each class's values are configurable.
 */
final class QosClassHook implements Hook {

  static final String NAME = "QoSClass";

  /** Per class: {@code null} fields leave the kubelet's value alone. */
  record ClassSettings(Long cpuShares, Long oomScoreAdj, String cpusetPool) {
    Adjustment adjustment() {
      LinuxResources.Builder r = LinuxResources.builder();
      if (cpuShares != null) {
        r.cpuShares(cpuShares);
      }
      if (cpusetPool != null) {
        r.cpusetCpus(cpusetPool);
      }
      Adjustment.Builder a = Adjustment.builder().resources(r.build());
      if (oomScoreAdj != null) {
        a.oomScoreAdj(oomScoreAdj);
      }
      return a.build();
    }
  }

  /**
   * Latency-sensitive classes keep their memory like the kubelet's Guaranteed pods (-998 is one
   * below the kubelet's -997, so they outlive them); BE gets the smallest CPU weight and is killed
   * first. LS and SYSTEM keep the kubelet's values.
   */
  static final Map<KoordQosClass, ClassSettings> DEFAULTS = Map.of(
      KoordQosClass.LSE, new ClassSettings(null, -998L, null),
      KoordQosClass.LSR, new ClassSettings(null, -998L, null),
      KoordQosClass.LS, new ClassSettings(null, null, null),
      KoordQosClass.BE, new ClassSettings(2L, 1000L, null),
      KoordQosClass.SYSTEM, new ClassSettings(null, null, null));

  private static final Set<String> CLASS_KEYS = new TreeSet<>(Set.of("cpuShares", "oomScoreAdj", "cpuset"));

  private final Map<KoordQosClass, ClassSettings> classes;

  QosClassHook(Map<KoordQosClass, ClassSettings> classes) {
    this.classes = new EnumMap<>(classes);
  }

  /** Defaults overlaid with {@code classes: {BE: {cpuShares: 2, oomScoreAdj: 1000, cpuset: "1"}}}. */
  static QosClassHook fromSettings(JsonNode settings) {
    Map<KoordQosClass, ClassSettings> classes = new EnumMap<>(DEFAULTS);
    JsonNode configured = settings.path("classes");
    for (Iterator<Map.Entry<String, JsonNode>> it = configured.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      KoordQosClass qos = parseClass(entry.getKey());
      ClassSettings base = classes.get(qos);
      JsonNode c = entry.getValue();
      String path = "hooks.QoSClass.classes." + qos;
      SettingsFields.requireKeys(c, CLASS_KEYS, path, "class " + qos);
      // boxed on purpose: an unset default is null, and a long/Long conditional would unbox it
      Long cpuShares = c.has("cpuShares") ? Long.valueOf(SettingsFields.longIn(c, "cpuShares", 2, 262144, path))
          : base.cpuShares();
      Long oomScoreAdj = c.has("oomScoreAdj") ? Long.valueOf(SettingsFields.longIn(c, "oomScoreAdj", -1000, 1000, path))
          : base.oomScoreAdj();
      String cpuset = c.has("cpuset") ? emptyToNull(SettingsFields.cpuList(c, "cpuset", path)) : base.cpusetPool();
      classes.put(qos, new ClassSettings(cpuShares, oomScoreAdj, cpuset));
    }
    return new QosClassHook(classes);
  }

  private static String emptyToNull(String pool) {
    return pool.isEmpty() ? null : pool;
  }

  private static KoordQosClass parseClass(String name) {
    try {
      KoordQosClass qos = KoordQosClass.valueOf(name);
      if (qos != KoordQosClass.NONE) {
        return qos;
      }
    } catch (IllegalArgumentException ignored) {
      // fall through to the error naming the known classes
    }
    throw new CrigateException.InvalidArgument(
        "hooks.QoSClass.classes: unknown class '%s'; known: LSE, LSR, LS, BE, SYSTEM".formatted(name));
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public Set<Stage> stages() {
    return Set.of(Stage.PRE_CREATE_CONTAINER, Stage.PRE_UPDATE_CONTAINER_RESOURCES);
  }

  @Override
  public Adjustment onContainer(Stage stage, PodContext pod, ContainerContext container) {
    KoordQosClass qos = KoordQosClass.of(pod.labels());
    if (qos == KoordQosClass.NONE) {
      return Adjustment.NONE;
    }
    return classes.get(qos).adjustment();
  }
}

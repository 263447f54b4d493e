package io.crigate.spi.adjust;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * Changes to the container (or, for RunPodSandbox, the sandbox) whose event is being handled,
 * applied before the runtime acts. Everything absent is left as the request had it.
 *
 * @param resources cgroup resources to set
 * @param oomScoreAdj the OOM score adjustment to set
 * @param env environment variables to add or overwrite, by name
 * @param annotations annotations to add or overwrite, by key
 */
public record Adjustment(LinuxResources resources, OptionalLong oomScoreAdj, Map<String, String> env,
    Map<String, String> annotations) {

  public static final Adjustment NONE = builder().build();

  public Adjustment {
    env = Map.copyOf(env);
    annotations = Map.copyOf(annotations);
  }

  public static Builder builder() {
    return new Builder();
  }

  public static Adjustment of(LinuxResources resources) {
    return builder().resources(resources).build();
  }

  public boolean isEmpty() {
    return equals(NONE);
  }

  /** Every set field by name: the resource fields, {@code oom_score_adj}, {@code env.<NAME>}, {@code annotations.<key>}. */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>(resources.fields());
    oomScoreAdj.ifPresent(v -> fields.put(OOM_SCORE_ADJ, v));
    new TreeMap<>(env).forEach((name, v) -> fields.put(ENV + name, v));
    new TreeMap<>(annotations).forEach((key, v) -> fields.put(ANNOTATIONS + key, v));
    return fields;
  }

  private static final String OOM_SCORE_ADJ = "oom_score_adj";
  private static final String ENV = "env.";
  private static final String ANNOTATIONS = "annotations.";

  /** The inverse of {@link #fields()}. */
  static Adjustment fromFields(Map<String, Object> fields) {
    Builder b = builder().resources(LinuxResources.fromFields(fields));
    fields.forEach((name, value) -> {
      if (name.equals(OOM_SCORE_ADJ)) {
        b.oomScoreAdj((Long) value);
      } else if (name.startsWith(ENV)) {
        b.env(name.substring(ENV.length()), (String) value);
      } else if (name.startsWith(ANNOTATIONS)) {
        b.annotation(name.substring(ANNOTATIONS.length()), (String) value);
      }
    });
    return b.build();
  }

  public static final class Builder {
    private LinuxResources resources = LinuxResources.NONE;
    private OptionalLong oomScoreAdj = OptionalLong.empty();
    private final Map<String, String> env = new TreeMap<>();
    private final Map<String, String> annotations = new TreeMap<>();

    private Builder() {}

    public Builder resources(LinuxResources value) {
      resources = value;
      return this;
    }

    public Builder oomScoreAdj(long value) {
      oomScoreAdj = OptionalLong.of(value);
      return this;
    }

    public Builder env(String name, String value) {
      env.put(name, value);
      return this;
    }

    public Builder annotation(String key, String value) {
      annotations.put(key, value);
      return this;
    }

    public Adjustment build() {
      return new Adjustment(resources, oomScoreAdj, env, annotations);
    }
  }
}

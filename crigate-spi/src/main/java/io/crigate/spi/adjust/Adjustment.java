package io.crigate.spi.adjust;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
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
 * @param mounts bind mounts to add, or to replace the container's own at the same container path;
 *     sorted by container path, at most one per path
 */
public record Adjustment(LinuxResources resources, OptionalLong oomScoreAdj, Map<String, String> env,
    Map<String, String> annotations, List<Mount> mounts) {

  public static final Adjustment NONE = builder().build();

  public Adjustment {
    env = Map.copyOf(env);
    annotations = Map.copyOf(annotations);
    List<Mount> sorted = new ArrayList<>(mounts);
    sorted.sort(Comparator.comparing(Mount::containerPath));
    for (int i = 1; i < sorted.size(); i++) {
      if (sorted.get(i).containerPath().equals(sorted.get(i - 1).containerPath())) {
        throw new IllegalArgumentException("two mounts at container path " + sorted.get(i).containerPath()
            + ": " + sorted.get(i - 1) + " and " + sorted.get(i));
      }
    }
    mounts = List.copyOf(sorted);
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

  /**
   * Every set field by name: the resource fields, {@code oom_score_adj}, {@code env.<NAME>},
   * {@code annotations.<key>}, {@code mounts.<container path>}.
   */
  public Map<String, Object> fields() {
    Map<String, Object> fields = new LinkedHashMap<>(resources.fields());
    oomScoreAdj.ifPresent(v -> fields.put(OOM_SCORE_ADJ, v));
    new TreeMap<>(env).forEach((name, v) -> fields.put(ENV + name, v));
    new TreeMap<>(annotations).forEach((key, v) -> fields.put(ANNOTATIONS + key, v));
    mounts.forEach(m -> fields.put(MOUNTS + m.containerPath(), m));
    return fields;
  }

  private static final String OOM_SCORE_ADJ = "oom_score_adj";
  private static final String ENV = "env.";
  private static final String ANNOTATIONS = "annotations.";
  private static final String MOUNTS = "mounts.";

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
      } else if (name.startsWith(MOUNTS)) {
        b.mount((Mount) value);
      }
    });
    return b.build();
  }

  public static final class Builder {
    private LinuxResources resources = LinuxResources.NONE;
    private OptionalLong oomScoreAdj = OptionalLong.empty();
    private final Map<String, String> env = new TreeMap<>();
    private final Map<String, String> annotations = new TreeMap<>();
    private final List<Mount> mounts = new ArrayList<>();

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

    /** Adds a mount; a second one at the same container path makes {@link #build} fail. */
    public Builder mount(Mount value) {
      mounts.add(value);
      return this;
    }

    public Adjustment build() {
      return new Adjustment(resources, oomScoreAdj, env, annotations, mounts);
    }
  }
}

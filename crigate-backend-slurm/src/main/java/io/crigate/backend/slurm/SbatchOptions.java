package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * sbatch options by full long name, later settings overriding earlier ones; only those
 * {@link SbatchOptionNames} allows, with abbreviations resolved as sbatch resolves them. Parsed from the word lists
 * users give (annotations, flavors); rendered as {@code --name=value} argv words for sbatch or as
 * fields of a slurmrestd job description.
 */
final class SbatchOptions {

  private static final Map<String, String> SHORT = Map.ofEntries(
      Map.entry("p", "partition"), Map.entry("N", "nodes"), Map.entry("n", "ntasks"),
      Map.entry("c", "cpus-per-task"), Map.entry("t", "time"), Map.entry("G", "gpus"),
      Map.entry("A", "account"), Map.entry("q", "qos"), Map.entry("C", "constraint"),
      Map.entry("w", "nodelist"), Map.entry("x", "exclude"));

  private final Map<String, String> options = new LinkedHashMap<>();

  void set(String name, String value) {
    options.remove(name);
    options.put(name, value);
  }

  void setAll(SbatchOptions other) {
    other.options.forEach(this::set);
  }

  Map<String, String> asMap() {
    return Map.copyOf(options);
  }

  /** {@code --name=value}, or {@code --name} for a flag without value. */
  List<String> argv() {
    List<String> words = new ArrayList<>();
    options.forEach((name, value) -> words.add(value.isEmpty() ? "--" + name : "--" + name + "=" + value));
    return words;
  }

  /**
   * Accepts {@code --name=value}, {@code --flag}, {@code -X value} and {@code -Xvalue} for the
   * common short options. A long option's value must be joined with '=': {@code --time 10} is
   * ambiguous with a flag followed by a stray word, so it is refused.
   */
  static SbatchOptions parse(String source, List<String> words) {
    SbatchOptions parsed = new SbatchOptions();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      String name;
      String value;
      if (word.startsWith("--") && word.length() > 2) {
        int eq = word.indexOf('=');
        name = eq < 0 ? word.substring(2) : word.substring(2, eq);
        if (name.isEmpty()) {
          throw invalid(source, "'%s' is not an sbatch option".formatted(word));
        }
        value = eq < 0 ? "" : word.substring(eq + 1);
      } else if (word.startsWith("-") && word.length() >= 2 && SHORT.containsKey(word.substring(1, 2))) {
        name = SHORT.get(word.substring(1, 2));
        if (word.length() > 2) {
          value = word.substring(2);
        } else if (i + 1 < words.size()) {
          value = words.get(++i);
        } else {
          throw invalid(source, "option %s needs a value".formatted(word));
        }
      } else {
        throw invalid(source, "'%s' is not an sbatch option (write long options as --name=value)".formatted(word));
      }
      parsed.set(SbatchOptionNames.resolve(source, name), value);
    }
    return parsed;
  }

  private static CrigateException.InvalidArgument invalid(String source, String problem) {
    return new CrigateException.InvalidArgument("%s: %s".formatted(source, problem));
  }
}

package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.policy.seed.SeedFinding;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Rewrites a {@code crigate serve} command line written for multi-cri or CRI Resource Manager: each
 * of their flags becomes crigate settings (or a warning, or a refusal), and everything else is left
 * for crigate's own parser. Like Go's flag package, a seed flag may be written {@code -name} or
 * {@code --name}, with its value after {@code =} or as the next argument. Crigate's own flags that
 * the seeds share ({@code -dump}, {@code -dump-file}, {@code -config}) are accepted with one dash.
 */
public final class SeedArguments {

  static final Map<String, SeedFlag> FLAGS = catalogue();
  private static final List<String> SHARED_NATIVE = List.of("dump-file", "remote-runtime-endpoints");

  private SeedArguments() {}

  /**
   * @param args the arguments after {@code serve}
   * @param environment where multi-cri's CRI_SLURM_* variables and HOME are read
   */
  public static SeedCommandLine translate(List<String> args, Map<String, String> environment) {
    Translation t = new Translation(environment);
    for (int i = 0; i < args.size(); i++) {
      i = consume(args, i, t);
    }
    return finish(t);
  }

  static SeedCommandLine finish(Translation t) {
    if (t.multiCri) {
      MultiCriFlags.addAdapter(t);
    }
    boolean crigateBackends = t.crigateArgs.stream()
        .anyMatch(a -> a.startsWith("--remote-runtime-endpoints") || a.startsWith("--config"));
    if (t.criRm && !t.runtimeGiven && !crigateBackends) {
      CriRmFlags.runtime("--runtime-socket (CRI Resource Manager's default)", CriRmFlags.DEFAULT_RUNTIME_SOCKET, t);
    }
    defaultSocket(t);
    if (t.resetConfig) {
      t.replacementCommand = forgetConfigMap(t);
    }
    return new SeedCommandLine(t.replacementCommand == null ? List.copyOf(t.crigateArgs) : t.replacementCommand,
        t.replacementCommand != null, t.settings, t.findings.all());
  }

  /**
   * {@code --reset-config}, as CRI Resource Manager runs it: forget, then exit instead of serving. It
   * acts on the state directory this line's serve would use: crigate's own {@code --state-dir} or
   * {@code --config}, else {@code --relay-dir}, else the default.
   */
  private static List<String> forgetConfigMap(Translation t) {
    List<String> command = new ArrayList<>(List.of("policies", "forget-configmap"));
    boolean stateDirGiven = false;
    for (int i = 0; i < t.crigateArgs.size(); i++) {
      String arg = t.crigateArgs.get(i);
      String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      if (name.equals("--config") || name.equals("--state-dir")) {
        stateDirGiven |= name.equals("--state-dir");
        command.add(arg);
        if (!arg.contains("=") && i + 1 < t.crigateArgs.size()) {
          command.add(t.crigateArgs.get(++i));
        }
      }
    }
    if (!stateDirGiven && t.settings.has("stateDir")) {
      command.add("--state-dir=" + t.settings.get("stateDir").asText());
    }
    return command;
  }

  /**
   * The seed's own listening socket when the command line names none: the kubelet of a migrated node
   * still points at it. Crigate's {@code --socket}, or a crigate config file (which may set
   * {@code socket}), keeps crigate's default instead.
   */
  private static void defaultSocket(Translation t) {
    boolean crigateSocket = t.crigateArgs.stream().anyMatch(a -> a.startsWith("--socket") || a.startsWith("--config"));
    if (t.settings.has("socket") || crigateSocket) {
      return;
    }
    if (t.criRm) {
      t.map("--relay-socket (CRI Resource Manager's default)", "socket", CriRmFlags.DEFAULT_RELAY_SOCKET);
    } else if (t.multiCri) {
      t.map("--socket-path (multi-cri's default)", "socket", MultiCriFlags.DEFAULT_SOCKET);
    }
  }

  /** Handles {@code args[i]} (and its value); returns the index of the last argument used. */
  private static int consume(List<String> args, int i, Translation t) {
    String arg = args.get(i);
    if (!arg.startsWith("-") || arg.equals("-") || arg.equals("--")) {
      t.crigateArgs.add(arg);
      return i;
    }
    String body = arg.startsWith("--") ? arg.substring(2) : arg.substring(1);
    int eq = body.indexOf('=');
    String name = eq < 0 ? body : body.substring(0, eq);
    String inline = eq < 0 ? null : body.substring(eq + 1);
    if (name.equals("config")) {
      return config(args, i, inline, t);
    }
    if (name.equals("dump")) {
      String value = inline != null ? inline : i + 1 < args.size() ? args.get(i + 1) : "";
      t.dump(arg.substring(0, arg.length() - (inline == null ? 0 : inline.length() + 1)), value);
      return inline != null ? i : i + 1;
    }
    if (SHARED_NATIVE.contains(name) && !arg.startsWith("--")) {
      t.crigateArgs.add("--" + body); // Go's single-dash spelling of a flag crigate has too
      return i;
    }
    // klog's flags are spelled with underscores (log_dir); pflag's normalisation takes dashes as well
    SeedFlag flag = FLAGS.get(name.replace('_', '-'));
    if (flag == null) {
      t.crigateArgs.add(arg);
      return i;
    }
    String value = inline;
    int last = i;
    if (flag.takesValue() && value == null) {
      if (i + 1 >= args.size()) {
        t.findings.refused(arg, "needs a value");
        return i;
      }
      value = args.get(++last);
    }
    t.multiCri |= flag.multiCriOnly();
    t.criRm |= flag.seed().equals(SeedFlag.CRI_RM);
    apply(flag, arg.substring(0, arg.length() - (inline == null ? 0 : inline.length() + 1)), value, t);
    return last;
  }

  static void apply(SeedFlag flag, String spelled, String value, Translation t) {
    try {
      flag.action().apply(spelled, value, t);
    } catch (IllegalArgumentException e) {
      t.findings.refused(spelled, e.getMessage().replaceFirst("^" + java.util.regex.Pattern.quote(spelled) + ": ", ""));
    }
  }

  /** {@code --config FILE}: crigate's YAML stays crigate's; CRI Resource Manager's formats are translated. */
  private static int config(List<String> args, int i, String inline, Translation t) {
    String file = inline != null ? inline : i + 1 < args.size() ? args.get(i + 1) : null;
    int last = inline != null ? i : i + 1;
    if (file != null && CriRmConfigFile.isCriRm(java.nio.file.Path.of(file))) {
      CriRmConfigFile.translate(java.nio.file.Path.of(file), t);
      return last;
    }
    t.crigateArgs.add("--config");
    if (file != null) {
      t.crigateArgs.add(file);
    }
    return last;
  }

  private static Map<String, SeedFlag> catalogue() {
    Map<String, SeedFlag> all = new LinkedHashMap<>();
    Stream.concat(MultiCriFlags.all().stream(), CriRmFlags.all().stream()).forEach(f -> all.put(f.name(), f));
    return Map.copyOf(all);
  }

  /**
   * The result: crigate's arguments (a whole command instead of serve's when {@code replacesServe},
   * e.g. {@code policies} for {@code --list-policies}), the translated settings, and every finding.
   */
  public record SeedCommandLine(List<String> crigateArgs, boolean replacesServe, ObjectNode settings,
      List<SeedFinding> findings) {

    public List<SeedFinding> with(SeedFinding.Outcome outcome) {
      return findings.stream().filter(f -> f.outcome() == outcome).toList();
    }
  }
}

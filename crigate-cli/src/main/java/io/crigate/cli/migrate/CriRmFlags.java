package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.crigate.policy.seed.CriRmPolicySection;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * CRI Resource Manager's flags: the relay's sockets and directory, the policy options, the config
 * file options, the logger and the dump ({@code -dump} and {@code -dump-file} are crigate's own too).
 */
final class CriRmFlags {

  /** Where CRI Resource Manager relays to when --runtime-socket is not given: dockershim. */
  static final String DEFAULT_RUNTIME_SOCKET = "/var/run/dockershim.sock";

  /** Where CRI Resource Manager listens for the kubelet when --relay-socket is not given. */
  static final String DEFAULT_RELAY_SOCKET = "/var/run/cri-relay.sock";

  private CriRmFlags() {}

  static List<SeedFlag> all() {
    return List.of(
        value("policy", (flag, v, t) -> policy(flag, "Active", v, t)),
        value("reserved-resources", (flag, v, t) -> constraints(flag, "ReservedResources", v, t)),
        value("available-resources", (flag, v, t) -> constraints(flag, "AvailableResources", v, t)),
        bool("list-policies", (flag, v, t) -> t.replacementCommand = List.of("policies")),
        value("runtime-socket", (flag, v, t) -> runtime(flag, v, t)),
        value("image-socket", SeedFlag.refused(
            "crigate sends image calls to the backend that runs the pod; a separate image service is not supported "
                + "(point the kubelet's --image-service-endpoint at the runtime instead)")),
        value("relay-socket", (flag, v, t) -> t.map(flag, "socket", v)),
        value("relay-dir", (flag, v, t) -> t.map(flag, "stateDir", v)),
        value("agent-socket", SeedFlag.warned(
            "crigate has no node agent: it reads the ConfigMaps itself (policy.kubernetes)")),
        value("config-socket", SeedFlag.warned(
            "crigate has no node agent: it reads the ConfigMaps itself (policy.kubernetes)")),
        value("force-config", (flag, v, t) -> configFile(flag, v, t)),
        value("fallback-config", (flag, v, t) -> configFile(flag, v, t)),
        bool("reset-config", (flag, v, t) -> {
          t.resetConfig = !"false".equals(v);
          t.findings.mapped(flag, "crigate policies forget-configmap (forgets the policy ConfigMap remembered in the "
              + "state directory, then exits)");
        }),
        bool("reset-policy", SeedFlag.refused(
            "crigate switches policies live: change policy.active instead of resetting the stored policy")),
        bool("disable-policy-switch", SeedFlag.refused(
            "crigate always switches policies live when policy.active changes; it cannot pin the first one")),
        bool("allow-policy-switch", SeedFlag.warned("always allowed: crigate switches policies live")),
        value("logger-debug", (flag, v, t) -> loggerDebug(flag, v, t)),
        value("logger-level", (flag, v, t) -> loggerLevel(flag, v, t)),
        value("logger-source", SeedFlag.warned(
            "crigate's components are named differently; silence one with logging.levels: {COMPONENT: off}")),
        value("logger", SeedFlag.warned("crigate has one log backend, standard error (logging.format: text or json)")),
        value("logger-prefix", SeedFlag.warned("crigate always names the component (the logger) in each line")),
        bool("list-loggers", SeedFlag.warned(
            "crigate has one log backend, standard error (logging.format: text or json)")),
        value("metrics-interval", SeedFlag.warned(
            "crigate polls no runtime metrics; its own Prometheus metrics are set in the metrics section")),
        value("rebalance-interval", SeedFlag.warned(
            "crigate's policies place each container when it is created; they do not rebalance on a timer")),
        bool("disable-ui", SeedFlag.warned("crigate serves no placement visualisation UI")),
        bool("allow-untested-runtimes", SeedFlag.warned(
            "crigate's cri backend talks to any CRI runtime; there is no list of tested ones")),
        value("pid-file", SeedFlag.warned(
            "crigate writes no PID file: run it under systemd (Type=notify), which tracks the process")),
        value("force-config-signal", SeedFlag.warned(
            "crigate watches its policy file and applies changes as they are written, and re-reads logging on SIGHUP; "
                + "the signal cannot be changed")),
        bool("static-policy-relaxed-isolation", (flag, v, t) -> {
          ObjectNode section = JsonNodeFactory.instance.objectNode();
          section.putObject("static").put("RelaxedIsolation", !"false".equals(v));
          section.put("Active", "static");
          t.merge(policySection(flag, section, t, false));
        }));
  }

  private static void policy(String flag, String key, String value, Translation t) {
    ObjectNode section = JsonNodeFactory.instance.objectNode().put(key, value);
    t.merge(policySection(flag, section, t, true));
  }

  /** {@code cpu=1,memory=...} as CRI Resource Manager's flag syntax; each domain one setting. */
  private static void constraints(String flag, String key, String value, Translation t) {
    ObjectNode resources = JsonNodeFactory.instance.objectNode();
    for (String constraint : value.split(",(?=[a-zA-Z-]+=)")) {
      int eq = constraint.indexOf('=');
      if (eq <= 0) {
        t.findings.refused(flag, "'%s' is not domain=value (e.g. cpu=1)".formatted(constraint));
        return;
      }
      resources.put(constraint.substring(0, eq).strip(), constraint.substring(eq + 1).strip());
    }
    ObjectNode section = JsonNodeFactory.instance.objectNode();
    section.set(key, resources);
    t.merge(policySection(flag, section, t, true));
  }

  /** The flag's settings through the same translation as a config file's {@code policy:}, findings named after the flag. */
  private static ObjectNode policySection(String flag, ObjectNode section, Translation t, boolean nameByFlag) {
    io.crigate.policy.seed.SeedFindings local = new io.crigate.policy.seed.SeedFindings();
    ObjectNode policy = CriRmPolicySection.translate(section, "policy", local);
    local.all().forEach(f -> t.findings.add(new io.crigate.policy.seed.SeedFinding(
        nameByFlag ? flag : f.setting().replace("policy.", flag + " "), f.outcome(), f.detail())));
    ObjectNode out = JsonNodeFactory.instance.objectNode();
    if (!policy.isEmpty()) {
      out.set("policy", policy);
    }
    return out;
  }

  static void runtime(String flag, String socket, Translation t) {
    t.runtimeGiven = true;
    ObjectNode backend = JsonNodeFactory.instance.objectNode();
    backend.put("name", "default");
    backend.put("type", "cri");
    backend.putArray("handlers").add("default");
    backend.put("endpoint", socket);
    t.settings.withArray("backends").add(backend);
    t.findings.mapped(flag, "backends: cri backend 'default' (pods without a RuntimeClass) at " + socket);
  }

  private static void configFile(String flag, String file, Translation t) {
    CriRmConfigFile.translate(Path.of(file), t);
  }

  private static void loggerDebug(String flag, String value, Translation t) {
    String v = value.strip().toLowerCase(Locale.ROOT);
    if (v.equals("*") || v.equals("all") || v.equals("true")) {
      t.map(flag, "logLevel", "debug");
    } else {
      t.findings.ignored(flag, "crigate's components are named differently; set logging.levels (docs/operations.md) "
          + "or --log-level debug");
    }
  }

  /** CRI Resource Manager's levels are debug, info, warn and error; each is one of crigate's. */
  private static void loggerLevel(String flag, String value, Translation t) {
    String level = value.strip().toLowerCase(Locale.ROOT);
    if (!List.of("debug", "info", "warn", "error").contains(level)) {
      throw new IllegalArgumentException("%s: '%s' is not a level (debug, info, warn, error)".formatted(flag, value));
    }
    t.map(flag, "logLevel", level);
  }

  private static SeedFlag value(String name, SeedFlag.Action action) {
    return SeedFlag.of(SeedFlag.CRI_RM, name, true, action);
  }

  private static SeedFlag bool(String name, SeedFlag.Action action) {
    return SeedFlag.of(SeedFlag.CRI_RM, name, false, action);
  }
}

package io.crigate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * Log levels per component and the log format, from {@code logLevel} and the {@code logging}
 * section. {@link #apply} can run again on a live crigate (SIGHUP): components left out of the new
 * configuration go back to inheriting the root level, as cri-resmgr's {@code --logger-debug} does
 * without a restart.
 *
 * @param root the root level
 * @param levels logger name to level; components are given by short name ({@link #COMPONENTS}) or
 *     as a logger name with dots
 * @param json JSON lines (logback's JsonEncoder) instead of text
 */
record Logging(Level root, Map<String, Level> levels, boolean json) {

  /** Short names for crigate's parts, so an admin need not know package names. */
  static final Map<String, String> COMPONENTS = Map.ofEntries(
      Map.entry("core", "io.crigate.core"),
      Map.entry("dump", "io.crigate.core.dump"),
      Map.entry("cri", "io.crigate.backend.cri"),
      Map.entry("slurm", "io.crigate.backend.slurm"),
      Map.entry("streaming", "io.crigate.streaming"),
      Map.entry("metrics", "io.crigate.metrics"),
      Map.entry("images", "io.crigate.images"),
      Map.entry("scheduler", "io.crigate.scheduler"),
      Map.entry("grpc", "io.grpc"),
      Map.entry("netty", "io.netty"));
  private static final Set<String> LEVELS = Set.of("trace", "debug", "info", "warn", "error", "off");
  private static final List<String> KEYS = List.of("levels", "format");

  static Logging parse(String rootLevel, JsonNode section) {
    Map<String, Level> levels = new LinkedHashMap<>();
    boolean json = false;
    if (section != null && !section.isMissingNode() && !section.isNull()) {
      section.fieldNames().forEachRemaining(key -> {
        if (!KEYS.contains(key)) {
          throw invalid("unknown logging key '%s' (known: %s)".formatted(key, String.join(", ", KEYS)));
        }
      });
      String format = section.path("format").asText("text");
      if (!format.equals("text") && !format.equals("json")) {
        throw invalid("logging.format must be text or json, not '%s'".formatted(format));
      }
      json = format.equals("json");
      JsonNode given = section.path("levels");
      if (!given.isMissingNode() && !given.isObject()) {
        throw invalid("logging.levels must map components to levels, e.g. {slurm: debug}");
      }
      given.properties().forEach(entry -> levels.put(logger(entry.getKey()), level("logging.levels." + entry.getKey(),
          entry.getValue().asText())));
    }
    return new Logging(level("logLevel", rootLevel), levels, json);
  }

  private static String logger(String component) {
    String logger = COMPONENTS.get(component);
    if (logger != null) {
      return logger;
    }
    if (!component.contains(".")) {
      throw invalid("logging.levels: unknown component '%s' (known: %s, or a logger name with dots)"
          .formatted(component, String.join(", ", COMPONENTS.keySet().stream().sorted().toList())));
    }
    return component;
  }

  private static Level level(String where, String text) {
    String level = text.toLowerCase(Locale.ROOT);
    if (!LEVELS.contains(level)) {
      throw invalid("%s: unknown level '%s' (known: trace, debug, info, warn, error, off)".formatted(where, text));
    }
    return Level.toLevel(level);
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }

  /**
   * Sets the levels, resetting those {@code previous} set that this one leaves out (a quieted
   * library logger to its quiet level, any other to inheriting); the format once.
   */
  void apply(Logging previous) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(root);
    if (previous != null) {
      previous.levels().keySet().stream().filter(name -> !levels.containsKey(name))
          .forEach(name -> context.getLogger(name).setLevel(StderrLogConfigurator.QUIETED.get(name)));
    }
    levels.forEach((name, level) -> context.getLogger(name).setLevel(level));
    if (json && (previous == null || !previous.json())) {
      useJson(context);
    }
  }

  private static void useJson(LoggerContext context) {
    Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    if (root.getAppender(StderrLogConfigurator.APPENDER) instanceof ConsoleAppender<ILoggingEvent> console) {
      JsonEncoder encoder = new JsonEncoder();
      encoder.setContext(context);
      // the message as read, not its pattern and arguments apart; no per-event logger context dump
      encoder.setWithFormattedMessage(true);
      encoder.setWithMessage(false);
      encoder.setWithArguments(false);
      encoder.setWithContext(false);
      encoder.start();
      console.stop();
      console.setEncoder(encoder);
      console.start();
    }
  }
}

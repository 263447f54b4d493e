package io.crigate.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.Configurator;
import ch.qos.logback.classic.spi.ConfiguratorRank;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.ConsoleAppender;
import ch.qos.logback.core.spi.ContextAwareBase;
import java.util.Map;

/**
 * crigate's log setup, in code rather than a logback.xml: reading XML costs logback's configuration
 * framework and the JDK's XML parser, ~450 classes that every start loads and `serve` keeps resident
 * (docs/benchmarks.md, issue 10). Logs go to stderr (the appender {@code STDERR}, which {@link Logging}
 * switches to JSON), since stdout belongs to command output (ctl, simulate). A logback-test.xml or
 * logback.xml on the class path, or {@code -Dlogback.configurationFile}, still wins: tests keep theirs.
 */
@ConfiguratorRank(ConfiguratorRank.CUSTOM_LOW_PRIORITY)
public final class StderrLogConfigurator extends ContextAwareBase implements Configurator {

  static final String APPENDER = "STDERR";
  static final String FABRIC8_VERSION_WARNINGS = "io.fabric8.kubernetes.client.dsl.internal.VersionUsageUtils";
  static final String FABRIC8_INFORMER_RETRIES = "io.fabric8.kubernetes.client.informers.impl.cache.Reflector";
  /**
   * Library loggers whose warnings say nothing an admin can act on; {@link Logging} puts them back
   * here when a reload stops naming them.
   * <ul>
   *   <li>Netty's bootstrap: grpc sets SO_KEEPALIVE, which unix-socket channels do not know, and
   *       Netty warns once per connection.
   *   <li>fabric8's version warnings: at every start, that crigate's own NodeImageLayers CRD is v1alpha1.
   *   <li>fabric8's informer reflector: a stack trace per retry of a failed list; crigate's informers
   *       log one line naming the cause instead. An informer that gives up is still its ERROR.
   * </ul>
   */
  static final Map<String, Level> QUIETED = Map.of(
      "io.netty.bootstrap", Level.ERROR,
      FABRIC8_VERSION_WARNINGS, Level.ERROR,
      FABRIC8_INFORMER_RETRIES, Level.ERROR);
  private static final String PATTERN = "%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{36} - %msg%n";

  @Override
  public ExecutionStatus configure(LoggerContext context) {
    if (configuredElsewhere()) {
      return ExecutionStatus.INVOKE_NEXT_IF_ANY;
    }
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern(PATTERN);
    encoder.start();
    ConsoleAppender<ILoggingEvent> stderr = new ConsoleAppender<>();
    stderr.setContext(context);
    stderr.setName(APPENDER);
    stderr.setTarget("System.err");
    stderr.setEncoder(encoder);
    stderr.start();
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    root.setLevel(Level.INFO);
    root.addAppender(stderr);
    QUIETED.forEach((name, level) -> context.getLogger(name).setLevel(level));
    return ExecutionStatus.DO_NOT_INVOKE_NEXT_IF_ANY;
  }

  private static boolean configuredElsewhere() {
    ClassLoader loader = StderrLogConfigurator.class.getClassLoader();
    return System.getProperty("logback.configurationFile") != null
        || loader.getResource("logback-test.xml") != null
        || loader.getResource("logback.xml") != null;
  }
}

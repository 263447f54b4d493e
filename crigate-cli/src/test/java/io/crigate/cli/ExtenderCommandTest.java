package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;

class ExtenderCommandTest {

  private final ListAppender<ILoggingEvent> logs = new ListAppender<>();

  @BeforeEach
  void pointAtNoApiServer() {
    UnreachableApi.set();
    logs.start();
    root().addAppender(logs);
  }

  @AfterEach
  void restore() {
    UnreachableApi.clear();
    root().detachAppender(logs);
  }

  /**
   * The admin reads one line naming the API and the innermost cause, not a reflector's stack trace
   * per informer before it.
   */
  @Test
  void anUnreachableApiIsOneLineFromTheCommandAndNoInformerStarts() {
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setErr(new PrintWriter(err, true));

    int exit = cli.execute("extender", "--port=0");

    assertThat(exit).isEqualTo(1);
    assertThat(err.toString()).startsWith("crigate extender: cannot list NodeImageLayers, Nodes or Pods from the Kubernetes API")
        .contains("Connection refused").hasLineCount(1);
    assertThat(logs.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR)).isEmpty();
  }

  private static Logger root() {
    return (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
  }
}

package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class StartFailureTest {

  @Test
  void aCauseThatNamesMoreIsAppended() {
    var failure = new IllegalStateException("cannot open the state database",
        new UncheckedIOException("open failed", new AccessDeniedException("/var/lib/crigate/state.db")));

    assertThat(StartFailure.describe(failure)).isEqualTo("cannot open the state database: java.io.UncheckedIOException: "
        + "open failed: java.nio.file.AccessDeniedException: /var/lib/crigate/state.db");
  }

  @Test
  void aWrapperThatRepeatsItsCauseAddsNothing() {
    var refused = new ConnectException("Connection refused: /127.0.0.1:1");
    var failure = new IllegalStateException("Operation: [get] for kind: [Node] failed.", new CompletionException(refused));

    // CompletionException's message is its cause's toString(): only the cause itself is kept
    assertThat(StartFailure.describe(failure))
        .isEqualTo("Operation: [get] for kind: [Node] failed.: java.net.ConnectException: Connection refused: /127.0.0.1:1");
  }

  @Test
  void aCauseWithoutAMessageIsNamedByItsClass() {
    assertThat(StartFailure.describe(new IllegalStateException("bind failed", new NullPointerException())))
        .isEqualTo("bind failed: java.lang.NullPointerException");
  }
}

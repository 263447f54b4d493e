package io.crigate.spi;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.Test;

class CausesTest {

  @Test
  void aCompletionExceptionGivesUpItsCauseAndNothingElseIsUnwrapped() {
    var refused = new ConnectException("Connection refused");
    var wrapped = new IOException("list failed", refused);

    assertThat(Causes.unwrapCompletion(new CompletionException(wrapped))).isSameAs(wrapped);
    assertThat(Causes.unwrapCompletion(wrapped)).isSameAs(wrapped);
    assertThat(Causes.unwrapCompletion(new CompletionException("no cause", null))).isInstanceOf(CompletionException.class);
  }

  @Test
  void theInnermostCauseIsTheLastOfTheChain() {
    var refused = new ConnectException("Connection refused");

    assertThat(Causes.innermost(new IllegalStateException("start", new CompletionException(new IOException("list", refused)))))
        .isSameAs(refused);
    assertThat(Causes.innermost(refused)).isSameAs(refused);
  }
}

package io.crigate.streaming;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.spi.CrigateException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class TokensTest {

  private final StreamingServerTest.MutableClock clock = new StreamingServerTest.MutableClock();
  private final Tokens tokens = new Tokens(Duration.ofSeconds(60), clock);
  private final StreamRequest exec = StreamRequest.exec(ExecRequest.newBuilder().addCmd("sh").build(),
      new UppercaseRuntime(), new StreamingMetrics(new io.prometheus.metrics.model.registry.PrometheusRegistry()));

  @Test
  void aTokenIsConsumedByItsFirstUse() {
    String token = tokens.issue(exec);

    assertThat(tokens.consume("exec", token)).contains(exec);
    assertThat(tokens.consume("exec", token)).isEmpty();
  }

  @Test
  void aTokenExpiresAtItsTtl() {
    String token = tokens.issue(exec);
    clock.advance(Duration.ofSeconds(59));
    String later = tokens.issue(exec);
    clock.advance(Duration.ofSeconds(1));

    // 60 s after issue: the first is gone, the second (issued at 59 s) has 59 s left.
    assertThat(tokens.consume("exec", token)).isEmpty();
    assertThat(tokens.consume("exec", later)).contains(exec);
  }

  @Test
  void expiredTokensMakeRoomAndTooManyWaitingAreRefused() {
    for (int i = 0; i < Tokens.MAX_IN_FLIGHT; i++) {
      tokens.issue(exec);
    }
    assertThatThrownBy(() -> tokens.issue(exec)).isInstanceOf(CrigateException.Unavailable.class)
        .hasMessageContaining("1000 streaming URLs are waiting");

    clock.advance(Duration.ofSeconds(60));

    tokens.issue(exec);
    assertThat(tokens.size()).isEqualTo(1);
  }
}

package io.crigate.interlink.http;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class JsonHttpClientTest {

  /** A plugin or API URL without a scheme this client speaks used to be taken, and every call failed later. */
  @ParameterizedTest
  @ValueSource(strings = {"notaurl", "localhost:4000", "ftp://host:21", "unix://relative.sock"})
  void aUrlWithoutAKnownSchemeIsRefusedWhenGiven(String url) {
    assertThatThrownBy(() -> new JsonHttpClient(url, null))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage("'%s' is not a URL this client speaks: http://host:port, https://host:port or unix:///path", url);
  }
}

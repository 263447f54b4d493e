package io.crigate.interlink.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class HttpEndpointTest {

  /** Each used to surface only when the server bound it: a Jetty stack trace, or a bare NumberFormatException. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      "127.0.0.1|listen address '127.0.0.1': neither host:port nor unix:///path",
      "127.0.0.1:99999|listen address '127.0.0.1:99999': the port must be 0 (any free port) to 65535",
      "127.0.0.1:-1|listen address '127.0.0.1:-1': the port must be 0 (any free port) to 65535",
      "127.0.0.1:http|listen address '127.0.0.1:http': the port 'http' is not a number",
      "unix://|listen address 'unix://': the unix socket's path is missing"})
  void aBadListenAddressIsNamedWhenGiven(String address, String message) {
    assertThatThrownBy(() -> HttpEndpoint.plain(address))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage(message);
  }

  @Test
  void aGoodAddressGivesItsHostAndPortOrItsSocket() {
    HttpEndpoint tcp = HttpEndpoint.plain("0.0.0.0:3000");
    assertThat(tcp.unix()).isFalse();
    assertThat(tcp.host()).isEqualTo("0.0.0.0");
    assertThat(tcp.port()).isEqualTo(3000);
    assertThat(HttpEndpoint.plain("[::1]:0").host()).isEqualTo("[::1]");

    HttpEndpoint unix = HttpEndpoint.plain("unix:///run/interlink/plugin.sock");
    assertThat(unix.unix()).isTrue();
    assertThat(unix.socketPath()).isEqualTo(Path.of("/run/interlink/plugin.sock"));
  }
}

package io.crigate.streaming;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import io.crigate.spi.config.SecondsOrDuration;
import io.crigate.spi.config.SettingsBinder;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code streaming} section of the configuration.
 *
 * @param address where the server listens and what its URLs name; must be one the kubelet reaches
 *     (the default, loopback, is the kubelet on the same node)
 * @param port 0 picks a free port when the first session is requested
 * @param tokenTtl how long a URL stays usable if nobody connects; each URL works once
 * @param streamCreationTimeout how long a SPDY client may take to open its streams after the upgrade
 * @param idleTimeout how long a connection may pass no bytes either way before the server closes it,
 *     ending its session: a forgotten {@code kubectl exec} does not hold a job step forever
 * @param tls the server speaks TLS with this certificate and key; empty: plain HTTP, for loopback
 */
public record StreamingSettings(InetAddress address, int port, Duration tokenTtl, Duration streamCreationTimeout,
    Duration idleTimeout, Optional<StreamingTls> tls) {

  private static final Duration MAX_TOKEN_TTL = Duration.ofHours(1);
  private static final Duration MAX_STREAM_CREATION_TIMEOUT = Duration.ofMinutes(10);

  /**
   * The section as written; an absent key is null. The durations also take the older
   * {@code tokenTtlSeconds} and {@code streamCreationTimeoutSeconds}, in whole seconds, and the idle
   * timeout containerd's name for it.
   */
  record Written(
      String address,
      Integer port,
      @JsonAlias("tokenTtlSeconds") @JsonDeserialize(using = SecondsOrDuration.class) Duration tokenTtl,
      @JsonAlias("streamCreationTimeoutSeconds") @JsonDeserialize(using = SecondsOrDuration.class)
      Duration streamCreationTimeout,
      @JsonAlias("streamIdleTimeout") @JsonDeserialize(using = SecondsOrDuration.class) Duration idleTimeout,
      String tlsCert,
      String tlsKey) {}

  /** The idle timeout is containerd's {@code stream_idle_timeout} and the kubelet's streaming one: 4 h. */
  public static StreamingSettings defaults() {
    return new StreamingSettings(InetAddress.getLoopbackAddress(), 0, Duration.ofMinutes(1), Duration.ofSeconds(30),
        Duration.ofHours(4), Optional.empty());
  }

  /** Reads the section; a missing node gives {@link #defaults()}. Every problem names its key. */
  public static StreamingSettings parse(JsonNode node) {
    StreamingSettings defaults = defaults();
    Written written = SettingsBinder.bind(node, Written.class, "streaming");
    InetAddress address = written.address() == null ? defaults.address() : address(written.address());
    int port = Objects.requireNonNullElse(written.port(), defaults.port());
    if (!PortNumber.listenable(port)) {
      throw invalid("streaming.port must be a whole number from 0 to 65535, not " + port);
    }
    Duration ttl = atMost("tokenTtl", Objects.requireNonNullElse(written.tokenTtl(), defaults.tokenTtl()), MAX_TOKEN_TTL);
    Duration creation = atMost("streamCreationTimeout",
        Objects.requireNonNullElse(written.streamCreationTimeout(), defaults.streamCreationTimeout()),
        MAX_STREAM_CREATION_TIMEOUT);
    Duration idle = Objects.requireNonNullElse(written.idleTimeout(), defaults.idleTimeout());
    if ((written.tlsCert() == null) != (written.tlsKey() == null)) {
      throw invalid("streaming.tlsCert and streaming.tlsKey go together");
    }
    Optional<StreamingTls> tls = written.tlsCert() == null ? Optional.empty()
        : Optional.of(new StreamingTls(Path.of(written.tlsCert()), Path.of(written.tlsKey())));
    return new StreamingSettings(address, port, ttl, creation, idle, tls);
  }

  private static Duration atMost(String key, Duration value, Duration max) {
    if (value.compareTo(max) > 0) {
      throw invalid("streaming.%s %s is longer than the %s allowed".formatted(key, value, max));
    }
    return value;
  }

  private static InetAddress address(String text) {
    try {
      InetAddress address = InetAddress.getByName(text);
      if (address.isAnyLocalAddress()) {
        // The URL must name an address the kubelet can connect to; a wildcard names none.
        throw invalid("streaming.address %s is a wildcard: give the node address the kubelet connects to".formatted(text));
      }
      return address;
    } catch (UnknownHostException e) {
      throw invalid("streaming.address '%s' is not an address: %s".formatted(text, e.getMessage()));
    }
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }
}

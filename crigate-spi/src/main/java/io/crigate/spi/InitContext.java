package io.crigate.spi;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.nio.file.Path;
import java.time.Clock;

/**
 * Everything a backend factory is given, in one record, so factories never reach for globals.
 *
 * @param name the backend's configured name
 * @param settings the backend's own section of the configuration, with secrets still in it: never log it
 * @param stateDir a directory only this backend writes to; it survives restarts
 * @param store durable records in this backend's own namespace
 * @param clock the time source, replaceable in tests
 * @param eventLoops the I/O loops crigate's CRI server runs on, owned by core: a backend that opens
 *     gRPC channels puts them here so a forwarded call never changes threads. Never block on them.
 * @param streams crigate's streaming server, for backends that serve Exec and Attach without one
 *     of their own; {@link Streams#NONE} when there is none
 * @param metrics where the backend registers its own metrics (names start with {@code crigate_});
 *     exported on /metrics when metrics are enabled
 */
public record InitContext(String name, JsonNode settings, Path stateDir, DurableStore store, Clock clock,
    EventLoopGroup eventLoops, Streams streams, PrometheusRegistry metrics) {

  /** A context without a streaming server, whose metrics go nowhere. */
  public InitContext(String name, JsonNode settings, Path stateDir, DurableStore store, Clock clock,
      EventLoopGroup eventLoops) {
    this(name, settings, stateDir, store, clock, eventLoops, Streams.NONE, new PrometheusRegistry());
  }

  /** The same context with another store (a decorator around this one). */
  public InitContext withStore(DurableStore other) {
    return new InitContext(name, settings, stateDir, other, clock, eventLoops, streams, metrics);
  }
}

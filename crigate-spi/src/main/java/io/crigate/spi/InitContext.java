package io.crigate.spi;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.EventLoopGroup;
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
 */
public record InitContext(String name, JsonNode settings, Path stateDir, DurableStore store, Clock clock,
    EventLoopGroup eventLoops) {}

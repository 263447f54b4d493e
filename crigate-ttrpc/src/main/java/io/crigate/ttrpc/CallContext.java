package io.crigate.ttrpc;

import java.time.Duration;

/**
 * What a server handler knows about its call.
 *
 * @param timeout the client's {@code timeout_nano}, zero when it sent none; past it the server has
 *     already answered DEADLINE_EXCEEDED and interrupted the handler
 */
public record CallContext(String service, String method, Metadata metadata, Duration timeout) {
}

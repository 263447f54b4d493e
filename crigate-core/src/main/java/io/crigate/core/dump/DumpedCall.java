package io.crigate.core.dump;

import com.google.protobuf.Message;
import io.grpc.Status;
import java.time.Instant;

/**
 * One finished call as the interceptor saw it. Holds the messages by reference (they are
 * immutable); all serialization happens later on the writer thread.
 *
 * @param request the first request message, or null if the call ended before one arrived
 * @param response the first response message, or null if none was sent
 * @param responses how many response messages were sent (more than one for streams)
 */
record DumpedCall(
    Instant time,
    String method,
    long latencyNanos,
    Status status,
    DumpLevel level,
    Message request,
    Message response,
    int responses) {}

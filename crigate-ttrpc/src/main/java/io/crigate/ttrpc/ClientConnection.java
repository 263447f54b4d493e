package io.crigate.ttrpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import io.crigate.ttrpc.transport.Frame;
import io.crigate.ttrpc.transport.FrameListener;
import io.crigate.ttrpc.transport.FrameTransport;
import io.crigate.ttrpc.wire.Request;
import io.crigate.ttrpc.wire.Response;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** The client side of one ttrpc connection: odd stream ids, any number of calls in flight. */
final class ClientConnection implements FrameListener {

  private static final byte[] END = new byte[0];

  private final FrameTransport transport;
  private final AtomicInteger nextId = new AtomicInteger(1);
  private final Map<Integer, Call> calls = new ConcurrentHashMap<>();
  private final CompletableFuture<Void> idle = new CompletableFuture<>();
  private volatile String closed;

  ClientConnection(FrameTransport transport) {
    this.transport = transport;
  }

  CompletableFuture<byte[]> unary(String service, String method, byte[] request, CallOptions options) {
    return open(service, method, request, options, (byte) 0).response;
  }

  ClientStream stream(String service, String method, byte[] first, boolean clientStreams, CallOptions options) {
    return open(service, method, first, options, clientStreams ? Frame.FLAG_REMOTE_OPEN : Frame.FLAG_REMOTE_CLOSED);
  }

  @Override
  public void onFrame(Frame frame) {
    Call call = calls.get(frame.streamId());
    if (call == null) {
      return; // answer to a call that already timed out
    }
    switch (frame.type()) {
      case Frame.RESPONSE -> call.complete(frame.payload());
      case Frame.DATA -> {
        if (!frame.has(Frame.FLAG_NO_DATA)) {
          call.inbound.add(frame.payload());
        }
      }
      default -> call.fail(new TtrpcException(Code.INTERNAL, "server sent a request frame on stream " + frame.streamId()));
    }
  }

  @Override
  public void onClosed() {
    if (closed == null) {
      closed = "connection closed";
    }
    calls.values().forEach(c -> c.fail(new TtrpcException(Code.UNAVAILABLE, "ttrpc " + closed)));
    idle.complete(null);
  }

  /** Refuses new calls; the returned future completes when the calls under way have ended. */
  CompletableFuture<Void> drain() {
    closed = "client closed";
    if (calls.isEmpty()) {
      idle.complete(null);
    }
    return idle;
  }

  private Call open(String service, String method, byte[] payload, CallOptions options, byte flags) {
    if (closed != null) {
      throw new TtrpcException(Code.UNAVAILABLE, "ttrpc " + closed);
    }
    Request.Builder request = Request.newBuilder().setService(service).setMethod(method)
        .setPayload(ByteString.copyFrom(payload)).addAllMetadata(options.metadata().toWire());
    long timeoutNanos = options.timeout().toNanos();
    if (timeoutNanos > 0) {
      request.setTimeoutNano(timeoutNanos);
    }
    byte[] encoded = request.build().toByteArray();
    int id = nextId.getAndAdd(2);
    Call call = new Call(id);
    Frame frame = new Frame(id, Frame.REQUEST, flags, encoded);
    calls.put(id, call);
    if (timeoutNanos > 0) {
      transport.timers().schedule(() -> call.fail(new TtrpcException(Code.DEADLINE_EXCEEDED,
          "%s/%s: deadline of %d ns exceeded".formatted(service, method, timeoutNanos))), timeoutNanos, TimeUnit.NANOSECONDS);
    }
    transport.send(frame);
    return call;
  }

  /** One call in flight. */
  private final class Call implements ClientStream {
    final int id;
    final CompletableFuture<byte[]> response = new CompletableFuture<>();
    final LinkedBlockingQueue<byte[]> inbound = new LinkedBlockingQueue<>();

    Call(int id) {
      this.id = id;
    }

    void complete(byte[] encoded) {
      Response r;
      try {
        r = Response.parseFrom(encoded);
      } catch (InvalidProtocolBufferException e) {
        fail(new TtrpcException(Code.INTERNAL, "cannot decode response: " + e.getMessage()));
        return;
      }
      if (r.hasStatus() && r.getStatus().getCode() != Code.OK.number()) {
        fail(new TtrpcException(r.getStatus()));
        return;
      }
      release();
      response.complete(r.getPayload().toByteArray());
      inbound.add(END);
    }

    void fail(TtrpcException e) {
      release();
      response.completeExceptionally(e);
      inbound.add(END);
    }

    private void release() {
      calls.remove(id);
      if (closed != null && calls.isEmpty()) {
        idle.complete(null);
      }
    }

    @Override
    public void send(byte[] message) {
      transport.send(new Frame(id, Frame.DATA, (byte) 0, message));
    }

    @Override
    public void closeSend() {
      transport.send(new Frame(id, Frame.DATA, (byte) (Frame.FLAG_REMOTE_CLOSED | Frame.FLAG_NO_DATA), new byte[0]));
    }

    @Override
    public Optional<byte[]> receive() throws InterruptedException {
      byte[] next = inbound.take();
      if (next != END) {
        return Optional.of(next);
      }
      inbound.add(END);
      if (response.isCompletedExceptionally()) {
        throw (TtrpcException) response.exceptionNow();
      }
      return Optional.empty();
    }
  }
}

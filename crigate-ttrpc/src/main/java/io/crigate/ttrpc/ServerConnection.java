package io.crigate.ttrpc;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.rpc.Status;
import io.crigate.ttrpc.transport.Frame;
import io.crigate.ttrpc.transport.FrameListener;
import io.crigate.ttrpc.transport.FrameTransport;
import io.crigate.ttrpc.wire.Request;
import io.crigate.ttrpc.wire.Response;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The server side of one ttrpc connection: runs each request on the executor, concurrently. */
final class ServerConnection implements FrameListener {

  private static final Logger LOG = LoggerFactory.getLogger(ServerConnection.class);
  private static final byte[] END = new byte[0];

  private final FrameTransport transport;
  private final Function<String, Optional<ServiceDefinition>> services;
  private final Executor executor;
  private final Runnable onIdle;
  private final Map<Integer, Call> calls = new ConcurrentHashMap<>();
  private volatile boolean draining;

  ServerConnection(FrameTransport transport, Function<String, Optional<ServiceDefinition>> services,
      Executor executor, Runnable onIdle) {
    this.transport = transport;
    this.services = services;
    this.executor = executor;
    this.onIdle = onIdle;
  }

  @Override
  public void onFrame(Frame frame) {
    switch (frame.type()) {
      case Frame.REQUEST -> onRequest(frame);
      case Frame.DATA -> {
        Call call = calls.get(frame.streamId());
        if (call != null) {
          call.accept(frame);
        }
      }
      default -> LOG.debug("ignoring frame of type {} on stream {}: not a request", frame.type(), frame.streamId());
    }
  }

  @Override
  public void onClosed() {
    draining = true;
    calls.values().forEach(c -> c.cancel("connection closed"));
  }

  int activeCalls() {
    return calls.size();
  }

  /** Stops taking requests; the connection closes once the calls under way have answered. */
  void drain() {
    draining = true;
    if (calls.isEmpty()) {
      onIdle.run();
    }
  }

  void cancelAll(String reason) {
    calls.values().forEach(c -> c.finish(Code.CANCELLED, reason));
  }

  private void onRequest(Frame frame) {
    int id = frame.streamId();
    if ((id & 1) == 0) {
      reject(id, Code.INVALID_ARGUMENT, "stream id %d must be odd for client-initiated streams".formatted(id));
      return;
    }
    Request request;
    try {
      request = Request.parseFrom(frame.payload());
    } catch (InvalidProtocolBufferException e) {
      reject(id, Code.INVALID_ARGUMENT, "cannot decode request: " + e.getMessage());
      return;
    }
    if (draining) {
      reject(id, Code.UNAVAILABLE, "server is shutting down");
      return;
    }
    Optional<ServiceDefinition.Method> method = services.apply(request.getService())
        .flatMap(s -> s.method(request.getMethod()));
    if (method.isEmpty()) {
      reject(id, Code.UNIMPLEMENTED, "method %s/%s is not served here".formatted(request.getService(), request.getMethod()));
      return;
    }
    Duration timeout = Duration.ofNanos(Math.max(0, request.getTimeoutNano()));
    Call call = new Call(id, new CallContext(request.getService(), request.getMethod(),
        Metadata.fromWire(request.getMetadataList()), timeout));
    if (calls.putIfAbsent(id, call) != null) {
      reject(id, Code.INVALID_ARGUMENT, "stream id %d is already in use".formatted(id));
      return;
    }
    if (!request.getPayload().isEmpty() || !frame.has(Frame.FLAG_REMOTE_OPEN)) {
      call.inbound.add(request.getPayload().toByteArray());
    }
    if (!frame.has(Frame.FLAG_REMOTE_OPEN)) {
      call.inbound.add(END);
    }
    if (!timeout.isZero()) {
      transport.timers().schedule(() -> call.expire(), timeout.toNanos(), TimeUnit.NANOSECONDS);
    }
    executor.execute(() -> call.run(method.get()));
  }

  private void reject(int id, Code code, String message) {
    LOG.debug("stream {}: {} {}", id, code, message);
    respond(id, Status.newBuilder().setCode(code.number()).setMessage(message).build(), ByteString.EMPTY);
  }

  private void respond(int id, Status status, ByteString payload) {
    byte[] response = Response.newBuilder().setStatus(status).setPayload(payload).build().toByteArray();
    if (response.length > Frame.MAX_PAYLOAD) {
      response = Response.newBuilder().setStatus(Status.newBuilder().setCode(Code.RESOURCE_EXHAUSTED.number())
          .setMessage("response of %d bytes exceeds the ttrpc limit".formatted(response.length))).build().toByteArray();
    }
    transport.send(new Frame(id, Frame.RESPONSE, (byte) 0, response));
  }

  /** One request under way. */
  private final class Call implements ServerStream {
    final int id;
    final CallContext context;
    final LinkedBlockingQueue<byte[]> inbound = new LinkedBlockingQueue<>();
    final AtomicBoolean finished = new AtomicBoolean();
    volatile Thread worker;

    Call(int id, CallContext context) {
      this.id = id;
      this.context = context;
    }

    @Override
    public CallContext context() {
      return context;
    }

    @Override
    public Optional<byte[]> receive() throws InterruptedException {
      byte[] next = inbound.take();
      if (next == END) {
        inbound.add(END);
        return Optional.empty();
      }
      return Optional.of(next);
    }

    @Override
    public void send(byte[] message) {
      if (finished.get()) {
        throw new TtrpcException(Code.CANCELLED, "stream %d already ended".formatted(id));
      }
      transport.send(new Frame(id, Frame.DATA, (byte) 0, message));
    }

    void accept(Frame data) {
      if (!data.has(Frame.FLAG_NO_DATA)) {
        inbound.add(data.payload());
      }
      if (data.has(Frame.FLAG_REMOTE_CLOSED)) {
        inbound.add(END);
      }
    }

    void run(ServiceDefinition.Method method) {
      worker = Thread.currentThread();
      try {
        if (finished.get()) {
          return;
        }
        byte[] out = method.invoke(this);
        finish(Status.newBuilder().setCode(Code.OK.number()).build(), ByteString.copyFrom(out));
      } catch (Throwable t) {
        if (!(t instanceof TtrpcException) && !finished.get()) {
          LOG.warn("{}/{} failed", context.service(), context.method(), t);
        }
        finish(TtrpcException.statusOf(t), ByteString.EMPTY);
      } finally {
        worker = null;
        Thread.interrupted();
      }
    }

    void expire() {
      finish(Code.DEADLINE_EXCEEDED, "deadline of %s exceeded".formatted(context.timeout()));
    }

    void cancel(String reason) {
      if (finished.compareAndSet(false, true)) {
        interrupt();
        release();
      }
    }

    void finish(Code code, String message) {
      if (finished.get()) {
        return;
      }
      finish(Status.newBuilder().setCode(code.number()).setMessage(message).build(), ByteString.EMPTY);
      interrupt();
    }

    private void finish(Status status, ByteString payload) {
      if (finished.compareAndSet(false, true)) {
        try {
          respond(id, status, payload);
        } finally {
          release();
        }
      }
    }

    private void interrupt() {
      Thread t = worker;
      if (t != null && t != Thread.currentThread()) {
        t.interrupt();
      }
    }

    private void release() {
      calls.remove(id);
      if (draining && calls.isEmpty()) {
        onIdle.run();
      }
    }
  }
}

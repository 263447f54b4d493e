package io.crigate.core.dump;

import com.google.protobuf.Message;
import io.grpc.ForwardingServerCall.SimpleForwardingServerCall;
import io.grpc.ForwardingServerCallListener.SimpleForwardingServerCallListener;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.grpc.Status;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Records CRI calls, like a wire tap in front of the handlers. A method the rules turn off passes
 * straight through; for the others the interceptor only keeps references and timestamps, and the
 * {@link AsyncDumpWriter} does redaction, serialization and I/O on its own thread.
 */
public final class DumpInterceptor implements ServerInterceptor, AutoCloseable {

  private final DumpRules rules;
  private final AsyncDumpWriter writer;
  private final Clock clock;

  DumpInterceptor(DumpRules rules, AsyncDumpWriter writer, Clock clock) {
    this.rules = rules;
    this.writer = writer;
    this.clock = clock;
  }

  /** Opens the dump file (mode 0600, appended to) or standard error, and starts the writer. */
  public static DumpInterceptor open(DumpSettings settings, Clock clock) {
    DumpEncoder encoder = new DumpEncoder(settings.format(), new SecretRedactor(settings.redactEnv()));
    Writer out = settings.file().map(DumpInterceptor::openFile)
        .orElseGet(() -> new OutputStreamWriter(System.err, StandardCharsets.UTF_8));
    boolean ownsOut = settings.file().isPresent();
    return new DumpInterceptor(settings.rules(),
        new AsyncDumpWriter(encoder, out, ownsOut, AsyncDumpWriter.QUEUE_CAPACITY, clock), clock);
  }

  private static Writer openFile(Path file) {
    try {
      Path parent = file.toAbsolutePath().getParent();
      Files.createDirectories(parent);
      if (!Files.exists(file)) {
        // Dumps hold pod specs; only the operator reads them.
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      }
      return Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot open dump file " + file, e);
    }
  }

  /** Calls not dumped because the writer fell behind or failed. */
  public long dropped() {
    return writer.dropped();
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String fullName = call.getMethodDescriptor().getFullMethodName();
    DumpLevel level = rules.levelFor(fullName);
    if (level == DumpLevel.OFF) {
      return next.startCall(call, headers);
    }
    Capture capture = new Capture(call.getMethodDescriptor().getBareMethodName(), level);
    ServerCall<ReqT, RespT> recording = new SimpleForwardingServerCall<>(call) {
      @Override
      public void sendMessage(RespT message) {
        capture.response(message);
        super.sendMessage(message);
      }

      @Override
      public void close(Status status, Metadata trailers) {
        capture.finish(status);
        super.close(status, trailers);
      }
    };
    return new SimpleForwardingServerCallListener<>(next.startCall(recording, headers)) {
      @Override
      public void onMessage(ReqT message) {
        capture.request(message);
        super.onMessage(message);
      }

      @Override
      public void onCancel() {
        capture.finish(Status.CANCELLED.withDescription("cancelled by the client"));
        super.onCancel();
      }
    };
  }

  /** What one call has shown so far; finished exactly once, by close or by cancellation. */
  private final class Capture {
    private final String method;
    private final DumpLevel level;
    private final Instant time = clock.instant();
    private final long startNanos = System.nanoTime();
    private final AtomicBoolean finished = new AtomicBoolean();
    private volatile Message request;
    private volatile Message response;
    private volatile int responses;

    Capture(String method, DumpLevel level) {
      this.method = method;
      this.level = level;
    }

    void request(Object message) {
      if (request == null) {
        request = (Message) message;
      }
    }

    void response(Object message) {
      if (responses++ == 0) {
        response = (Message) message;
      }
    }

    void finish(Status status) {
      if (finished.compareAndSet(false, true)) {
        writer.submit(new DumpedCall(time, method, System.nanoTime() - startNanos, status, level,
            request, response, responses));
      }
    }
  }

  /** Writes what is still queued and closes the dump file. */
  @Override
  public void close() {
    writer.close();
  }
}

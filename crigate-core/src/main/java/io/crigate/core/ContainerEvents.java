package io.crigate.core;

import io.crigate.api.cri.v1.ContainerEventResponse;
import io.crigate.api.cri.v1.GetEventsRequest;
import io.crigate.spi.Backend;
import io.grpc.Context;
import io.grpc.Status;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.ArrayDeque;
import java.util.Collection;
import java.util.Deque;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GetContainerEvents: one subscription per backend, each on its own virtual thread inside a context
 * forked from the caller's, merged into the caller's stream. The merged stream ends when every
 * backend's stream has ended; it fails, and the other subscriptions are cancelled, when one backend's
 * stream fails, because a silent gap would let the kubelet miss a container's death. Cancelling the
 * call cancels every subscription.
 *
 * <p>Back-pressure: events are written only while the caller's stream is ready; the rest wait, in
 * order, for its ready signal. A caller that stops reading gets its stream ended with
 * RESOURCE_EXHAUSTED once {@link #MAX_BUFFERED} events wait, rather than growing the daemon's heap
 * without bound; the kubelet then relists and subscribes again.
 */
final class ContainerEvents {

  private static final Logger log = LoggerFactory.getLogger(ContainerEvents.class);
  static final int MAX_BUFFERED = 4096;

  private final BackendRoutes routes;
  private final FanOut fanOut;

  ContainerEvents(BackendRoutes routes, FanOut fanOut) {
    this.routes = routes;
    this.fanOut = fanOut;
  }

  void getContainerEvents(GetEventsRequest request, StreamObserver<ContainerEventResponse> caller) {
    Collection<Backend> backends = routes.all();
    Context.CancellableContext subscriptions = Context.current().withCancellation();
    MergedStream merged = new MergedStream(caller, backends.size(), subscriptions);
    if (caller instanceof ServerCallStreamObserver<ContainerEventResponse> call) {
      call.setOnCancelHandler(merged::cancelledByCaller);
      call.setOnReadyHandler(merged::drain);
    }
    for (Backend backend : backends) {
      fanOut.start(subscriptions.wrap(() -> {
        try {
          backend.getContainerEvents(request, merged.from(backend));
        } catch (RuntimeException e) {
          merged.failed(backend, e);
        }
      }));
    }
  }

  /** Serialises the backends' callbacks onto the caller's observer, which is not thread-safe. */
  private static final class MergedStream {
    private final StreamObserver<ContainerEventResponse> caller;
    private final Context.CancellableContext subscriptions;
    private final Deque<ContainerEventResponse> waiting = new ArrayDeque<>();
    private int open;
    /** No more events will be written: the stream ended, or ends once {@link #waiting} is written. */
    private boolean finished;
    private boolean completeWhenDrained;

    MergedStream(StreamObserver<ContainerEventResponse> caller, int backends, Context.CancellableContext subscriptions) {
      this.caller = caller;
      this.open = backends;
      this.subscriptions = subscriptions;
    }

    StreamObserver<ContainerEventResponse> from(Backend backend) {
      return new StreamObserver<>() {
        @Override
        public void onNext(ContainerEventResponse event) {
          forward(event);
        }

        @Override
        public void onError(Throwable t) {
          failed(backend, t);
        }

        @Override
        public void onCompleted() {
          completed();
        }
      };
    }

    synchronized void forward(ContainerEventResponse event) {
      if (finished) {
        return;
      }
      if (waiting.isEmpty() && ready()) {
        caller.onNext(event);
        return;
      }
      if (waiting.size() >= MAX_BUFFERED) {
        finished = true;
        waiting.clear();
        log.warn("the caller of GetContainerEvents has not read {} events; ending its stream", MAX_BUFFERED);
        subscriptions.cancel(null);
        caller.onError(Status.RESOURCE_EXHAUSTED.withDescription(("%d container events wait for a caller that does "
            + "not read them; relist and subscribe again").formatted(MAX_BUFFERED)).asRuntimeException());
        return;
      }
      waiting.add(event);
    }

    /** The caller can take more: write what waits, and end the stream if every backend has ended. */
    synchronized void drain() {
      while (!waiting.isEmpty() && ready()) {
        caller.onNext(waiting.poll());
      }
      if (completeWhenDrained && waiting.isEmpty()) {
        completeWhenDrained = false;
        caller.onCompleted();
      }
    }

    private boolean ready() {
      return !(caller instanceof ServerCallStreamObserver<ContainerEventResponse> call) || call.isReady();
    }

    synchronized void completed() {
      if (!finished && --open == 0) {
        finished = true;
        completeWhenDrained = true;
        subscriptions.cancel(null);
        drain();
      }
    }

    synchronized void failed(Backend backend, Throwable t) {
      if (finished) {
        return;
      }
      finished = true;
      waiting.clear();
      log.warn("container events from backend {} failed; ending the merged stream", backend.name(), t);
      subscriptions.cancel(t);
      caller.onError(GrpcErrors.toStatus(t));
    }

    synchronized void cancelledByCaller() {
      finished = true;
      completeWhenDrained = false;
      waiting.clear();
      subscriptions.cancel(null);
    }
  }
}

package io.crigate.core;

import io.crigate.api.cri.v1.ContainerEventResponse;
import io.crigate.api.cri.v1.GetEventsRequest;
import io.crigate.spi.Backend;
import io.grpc.Context;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import java.util.Collection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * GetContainerEvents: one subscription per backend, each on its own virtual thread inside a context
 * forked from the caller's, merged into the caller's stream. The merged stream ends when every
 * backend's stream has ended; it fails, and the other subscriptions are cancelled, when one backend's
 * stream fails, because a silent gap would let the kubelet miss a container's death. Cancelling the
 * call cancels every subscription.
 */
final class ContainerEvents {

  private static final Logger log = LoggerFactory.getLogger(ContainerEvents.class);

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
    private int open;
    private boolean finished;

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
      if (!finished) {
        caller.onNext(event);
      }
    }

    synchronized void completed() {
      if (!finished && --open == 0) {
        finished = true;
        caller.onCompleted();
        subscriptions.cancel(null);
      }
    }

    synchronized void failed(Backend backend, Throwable t) {
      if (finished) {
        return;
      }
      finished = true;
      log.warn("container events from backend {} failed; ending the merged stream", backend.name(), t);
      subscriptions.cancel(t);
      caller.onError(GrpcErrors.toStatus(t));
    }

    synchronized void cancelledByCaller() {
      finished = true;
      subscriptions.cancel(null);
    }
  }
}

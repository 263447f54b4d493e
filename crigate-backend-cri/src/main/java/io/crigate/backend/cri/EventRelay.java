package io.crigate.backend.cri;

import io.crigate.api.cri.v1.ContainerEventResponse;
import io.crigate.api.cri.v1.GetEventsRequest;
import io.grpc.stub.ClientCallStreamObserver;
import io.grpc.stub.ClientResponseObserver;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;

/**
 * Hands a runtime's event stream to crigate's caller. Cancellation normally arrives through the
 * caller's context; when the downstream is a server stream that was cancelled without that (core
 * relayed it from another context), the next event notices and cancels the upstream call too.
 */
final class EventRelay implements ClientResponseObserver<GetEventsRequest, ContainerEventResponse> {

  private final StreamObserver<ContainerEventResponse> downstream;
  private ClientCallStreamObserver<GetEventsRequest> upstream;

  EventRelay(StreamObserver<ContainerEventResponse> downstream) {
    this.downstream = downstream;
  }

  @Override
  public void beforeStart(ClientCallStreamObserver<GetEventsRequest> requestStream) {
    this.upstream = requestStream;
  }

  @Override
  public void onNext(ContainerEventResponse event) {
    if (downstreamCancelled()) {
      upstream.cancel("crigate's caller cancelled the event stream", null);
      return;
    }
    downstream.onNext(event);
  }

  @Override
  public void onError(Throwable error) {
    if (!downstreamCancelled()) {
      downstream.onError(error);
    }
  }

  @Override
  public void onCompleted() {
    if (!downstreamCancelled()) {
      downstream.onCompleted();
    }
  }

  /** A cancelled server stream rejects further messages; nobody is listening any more. */
  private boolean downstreamCancelled() {
    return downstream instanceof ServerCallStreamObserver<?> server && server.isCancelled();
  }
}

package io.crigate.images;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read into memory, refused once it exceeds a limit: the registry writes the
 * body, and an unbounded one would be its way to exhaust the heap. Stops reading at the limit
 * instead of reading on to discard.
 */
final class BoundedBody implements HttpResponse.BodySubscriber<byte[]> {

  /** Completes the body future of a response that went over the limit. */
  static final class TooLarge extends IOException {
    TooLarge(long limit) {
      super("response body larger than " + limit + " bytes");
    }
  }

  private final long limit;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final CompletableFuture<byte[]> body = new CompletableFuture<>();
  private Flow.Subscription subscription;

  private final long announced;

  private BoundedBody(long limit, long announced) {
    this.limit = limit;
    this.announced = announced;
  }

  static HttpResponse.BodyHandler<byte[]> upTo(long limit) {
    return info -> new BoundedBody(limit, info.headers().firstValueAsLong("Content-Length").orElse(0));
  }

  @Override
  public void onSubscribe(Flow.Subscription newSubscription) {
    subscription = newSubscription;
    if (announced > limit) {
      subscription.cancel();
      body.completeExceptionally(new TooLarge(limit));
      return;
    }
    subscription.request(Long.MAX_VALUE);
  }

  @Override
  public void onNext(List<ByteBuffer> buffers) {
    for (ByteBuffer buffer : buffers) {
      if (bytes.size() + (long) buffer.remaining() > limit) {
        subscription.cancel();
        body.completeExceptionally(new TooLarge(limit));
        return;
      }
      byte[] chunk = new byte[buffer.remaining()];
      buffer.get(chunk);
      bytes.writeBytes(chunk);
    }
  }

  @Override
  public void onError(Throwable failure) {
    body.completeExceptionally(failure);
  }

  @Override
  public void onComplete() {
    body.complete(bytes.toByteArray());
  }

  @Override
  public CompletionStage<byte[]> getBody() {
    return body;
  }
}

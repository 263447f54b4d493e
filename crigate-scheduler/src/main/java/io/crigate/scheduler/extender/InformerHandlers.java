package io.crigate.scheduler.extender;

import io.crigate.spi.Causes;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Informers that keep a derived index: an added or updated object is put, a deleted one removed. */
final class InformerHandlers {

  private static final Logger LOG = LoggerFactory.getLogger(InformerHandlers.class);

  private InformerHandlers() {}

  /**
   * Runs {@code informer} with a put-or-remove handler and returns once that handler has applied
   * the initial list. An informer's {@code run()} returns when its store holds the list, but its
   * handlers are called later, on their own thread: an index read right after {@code run()} could
   * miss objects that the API server already listed (seen in CI as a node short of a pod).
   */
  static <T> SharedIndexInformer<T> runApplied(SharedIndexInformer<T> informer, Consumer<T> put, Consumer<T> remove) {
    AddCount added = new AddCount();
    informer.exceptionHandler(retryNamingTheCause(informer.getApiTypeClass().getSimpleName()));
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(T resource) {
        try {
          put.accept(resource);
        } finally { // an object the handler could not read still counts, or the wait would never end
          added.increment();
        }
      }

      @Override
      public void onUpdate(T old, T resource) {
        put.accept(resource);
      }

      @Override
      public void onDelete(T resource, boolean finalStateUnknown) {
        remove.accept(resource);
      }
    }).run();
    // every object in the store arrived through an add the handler will see; objects deleted
    // meanwhile only make the store smaller, so this wait cannot outlast the handler's queue
    added.awaitAtLeast(informer.getStore().listKeys().size());
    return informer;
  }

  /**
   * fabric8's own decision: after the first list, a failed list is retried unless the API server
   * refused the watch; before it, {@code run()} throws and the command ends with one line. Each
   * retry is one line naming the innermost cause, where fabric8 logs a stack trace.
   */
  static ExceptionHandler retryNamingTheCause(String kind) {
    return (started, failure) -> {
      boolean retry = started && !(failure instanceof WatcherException);
      if (retry) {
        LOG.warn("reading {} from the API server failed ({}); retrying", kind, Causes.innermost(failure).toString());
      }
      return retry;
    };
  }

  /** How many adds the handler has applied, for a starter to wait on. */
  private static final class AddCount {
    private long count;

    synchronized void increment() {
      count++;
      notifyAll();
    }

    synchronized void awaitAtLeast(long target) {
      try {
        while (count < target) {
          wait();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while the informer applied its initial list", e);
      }
    }
  }
}

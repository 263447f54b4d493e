package io.crigate.scheduler.extender;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer handlers that keep a derived index: an added or updated object is put, a deleted one removed. */
final class InformerHandlers {

  private InformerHandlers() {}

  static <T> ResourceEventHandler<T> putOrRemove(Consumer<T> put, Consumer<T> remove) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T resource) {
        put.accept(resource);
      }

      @Override
      public void onUpdate(T old, T resource) {
        put.accept(resource);
      }

      @Override
      public void onDelete(T resource, boolean finalStateUnknown) {
        remove.accept(resource);
      }
    };
  }
}

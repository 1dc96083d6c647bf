package org.vnpu.kube;

import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.util.function.Consumer;

/** Informer handlers in the one shape the deployables need. */
public final class Informers {

  private Informers() {}

  /** Reports additions and updates alike to {@code changed}, deletions to {@code removed}. */
  public static <T> ResourceEventHandler<T> handler(Consumer<T> changed, Consumer<T> removed) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T object) {
        changed.accept(object);
      }

      @Override
      public void onUpdate(T before, T object) {
        changed.accept(object);
      }

      @Override
      public void onDelete(T object, boolean finalStateUnknown) {
        removed.accept(object);
      }
    };
  }
}

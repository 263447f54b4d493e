package io.crigate.scheduler.extender;

import io.fabric8.kubernetes.api.model.Pod;

/** Told by {@link NodeLoadInformer}, besides the loads, of each pod it sees bound and of each that ended or went. */
public interface PodBindings {

  /** Nobody listens: the loads alone. */
  PodBindings NONE = new PodBindings() {
    @Override
    public void bound(String pod, String node, Pod object) {}

    @Override
    public void unbound(String pod) {}
  };

  /** {@code pod} (namespace/name) is bound to {@code node} and has not ended; told again on each change of it. */
  void bound(String pod, String node, Pod object);

  /** {@code pod} succeeded, failed or was deleted. */
  void unbound(String pod);
}

package io.crigate.interlink.wire;

import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;

/**
 * What an interLink plugin offers, whether it runs in this JVM (crigate's backend-backed plugin) or
 * behind HTTP (any plugin, crigate's or interLink's own). The interLink API layer forwards to one.
 * Bad input is a {@link BadRequest}; a remote plugin's refusal is a {@link PluginCallFailed}.
 */
public interface PluginApi {

  /** Idempotent per pod UID: a second create of the same pod returns the first answer. */
  CreateStruct create(RetrievedPodData pod);

  /** Cancels the pod's jobs and forgets it; a pod the plugin does not know is a no-op. */
  String delete(Pod pod);

  List<PodStatusReport> status(List<Pod> pods);

  /** Writes the container's log to {@code out}; with Follow, keeps writing until the container ends. */
  void logs(LogRequest request, OutputStream out) throws IOException;

  PingResponse ping();
}

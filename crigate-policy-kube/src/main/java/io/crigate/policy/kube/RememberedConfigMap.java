package io.crigate.policy.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.crigate.policy.PolicyMetrics.ClusterSource;
import io.crigate.spi.DurableStore;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The policy ConfigMap last applied on this node, kept in the policy plugin's durable store: a
 * restart while the API server cannot be reached resumes the cluster's configuration instead of
 * falling back to the local file's until the ConfigMaps are read again.
 *
 * @param namespace where the ConfigMap was read; one read elsewhere is not this node's any more
 * @param node the node it was chosen for
 * @param configMap the ConfigMap's name
 * @param resourceVersion the version applied, for the log
 * @param policy the policy section as applied, CRI Resource Manager's already translated
 */
record RememberedConfigMap(String namespace, String node, String configMap, String resourceVersion, JsonNode policy) {

  /**
   * Its key in the policy plugin's store. Each policy's own records sit under {@code <policy>/},
   * and no policy name is this key.
   */
  static final String KEY = "cluster-configmap";
  private static final Logger log = LoggerFactory.getLogger(RememberedConfigMap.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  /** The one remembered for these settings; one for another node or namespace is forgotten. */
  static Optional<RememberedConfigMap> recall(DurableStore store, ClusterPolicySettings settings) {
    Optional<RememberedConfigMap> kept = stored(store);
    if (kept.isPresent() && !kept.get().isFor(settings)) {
      log.info("the remembered policy ConfigMap {}/{} was chosen for node {}, not {}; forgotten",
          kept.get().namespace(), kept.get().configMap(), kept.get().node(), settings.node());
      forget(store);
      return Optional.empty();
    }
    return kept;
  }

  /** What {@code store} holds, whoever it was chosen for; empty also when the record cannot be read. */
  static Optional<RememberedConfigMap> stored(DurableStore store) {
    return store.get(KEY).flatMap(RememberedConfigMap::read);
  }

  private static Optional<RememberedConfigMap> read(byte[] bytes) {
    try {
      return Optional.of(JSON.readValue(bytes, RememberedConfigMap.class));
    } catch (IOException e) {
      // written by this class only; a record it cannot read is replaced by the next ConfigMap read
      log.warn("the remembered policy ConfigMap cannot be read, ignored: {}", e.getMessage());
      return Optional.empty();
    }
  }

  /** Removes what is remembered; false when nothing was, and nothing is written then. */
  static boolean forget(DurableStore store) {
    if (store.get(KEY).isEmpty()) {
      return false;
    }
    store.remove(KEY);
    return true;
  }

  void keep(DurableStore store) {
    try {
      store.put(KEY, JSON.writeValueAsBytes(this));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a record of strings and a tree always serializes
    }
  }

  /** Where the policy's cluster layer came from, for its metrics; {@code remembered}: resumed, not read. */
  ClusterSource source(boolean remembered) {
    return new ClusterSource(namespace + "/" + configMap, remembered);
  }

  /** Where it came from and whom it was for, as a person reads it: the ConfigMap, its version and the node. */
  String describe() {
    return "%s/%s (resourceVersion %s, chosen for node %s)".formatted(namespace, configMap, resourceVersion, node);
  }

  boolean isFor(ClusterPolicySettings settings) {
    return namespace.equals(settings.namespace()) && node.equals(settings.node());
  }
}

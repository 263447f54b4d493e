package io.crigate.policy.kube;

import static io.crigate.policy.kube.ConfigMapNames.DATA_KEY;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.policy.ActivePolicy;
import io.crigate.policy.ConfigLayer;
import io.crigate.spi.Causes;
import io.crigate.spi.CrigateException;
import io.crigate.spi.DurableStore;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ExceptionHandler;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link ConfigLayer#CLUSTER} layer of the policy configuration: informers on this node and on
 * the ConfigMaps of its namespace; whenever either changes, the most specific
 * {@code crigate-config.*} or CRI Resource Manager {@code cri-resmgr-config.*} ConfigMap
 * ({@link ConfigMapNames}) is applied, or the layer is dropped
 * when none exists. A configuration the policy rejects is logged and posted as a Warning Event on
 * the node; the previous configuration stays active. The one applied is remembered in the policy's
 * durable store ({@link RememberedConfigMap}) and resumed at the next start, before the API server
 * is asked.
 */
public final class PolicyConfigMaps implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PolicyConfigMaps.class);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
  private static final Duration RESYNC = Duration.ofMinutes(1);

  private final ClusterPolicySettings settings;
  private final ActivePolicy policy;
  private final NodeEvents events;
  private final DurableStore store;
  private SharedIndexInformer<Node> nodes;
  private SharedIndexInformer<ConfigMap> configMaps;
  /** What was last decided on, so informer resyncs neither reapply nor repost: name@resourceVersion. */
  private String lastSeen = "";

  private PolicyConfigMaps(ClusterPolicySettings settings, ActivePolicy policy, NodeEvents events, DurableStore store) {
    this.settings = settings;
    this.policy = policy;
    this.events = events;
    this.store = store;
  }

  /**
   * Starts following the ConfigMaps. The one applied before the last stop, remembered in
   * {@code store} (the policy plugin's own), is applied at once and this returns without waiting
   * for the API server. Without one, the chosen ConfigMap, if any, is applied before this returns
   * unless the API server cannot be read: it failed to answer, or gave no full answer within
   * {@code firstSyncWait}. Either way the informers keep retrying, and apply what they read.
   */
  public static PolicyConfigMaps start(KubernetesClient client, ClusterPolicySettings settings, ActivePolicy policy,
      DurableStore store, Duration firstSyncWait) {
    PolicyConfigMaps source = new PolicyConfigMaps(settings, policy, new NodeEvents(client, Clock.systemUTC()), store);
    boolean resumed = source.resume();
    ResourceEventHandler<Object> onChange = new ResourceEventHandler<>() {
      @Override
      public void onAdd(Object obj) {
        source.reevaluate();
      }

      @Override
      public void onUpdate(Object oldObj, Object newObj) {
        source.reevaluate();
      }

      @Override
      public void onDelete(Object obj, boolean deletedFinalStateUnknown) {
        source.reevaluate();
      }
    };
    CompletableFuture<Throwable> firstFailure = new CompletableFuture<>();
    source.nodes = client.nodes().withName(settings.node()).runnableInformer(RESYNC.toMillis());
    source.nodes.addEventHandler(cast(onChange)).exceptionHandler((started, failure) ->
        retries("Node " + settings.node(), started, failure, firstFailure));
    source.configMaps = client.configMaps().inNamespace(settings.namespace()).runnableInformer(RESYNC.toMillis());
    source.configMaps.addEventHandler(cast(onChange)).exceptionHandler((started, failure) ->
        retries("ConfigMaps in " + settings.namespace(), started, failure, firstFailure));
    CompletableFuture<Void> synced =
        CompletableFuture.allOf(source.nodes.start().toCompletableFuture(), source.configMaps.start().toCompletableFuture());
    if (!resumed) {
      awaitFirst(synced, firstFailure, firstSyncWait);
    }
    if (!synced.isDone()) {
      // The adds of a late first list can reach the handler before both informers count as synced,
      // and reevaluate ignores them then; once both are, decide again, off fabric8's event loop.
      synced.thenRunAsync(source::reevaluate);
      if (!resumed) {
        log.warn("policy ConfigMaps not read from {} ({}); running with the local configuration until they are",
            client.getMasterUrl(),
            firstFailure.isDone() ? innermost(firstFailure.join()) : "no answer within " + firstSyncWait.toSeconds() + " s");
      }
    }
    source.reevaluate();
    log.info("policy configuration follows ConfigMaps {} in namespace {}",
        source.names().inPrecedence(), settings.namespace());
    return source;
  }

  /**
   * Removes the ConfigMap remembered in {@code store}, for a configuration that no longer follows
   * ConfigMaps: a later start that follows them again must not resume an old one.
   */
  public static void notFollowed(DurableStore store) {
    if (RememberedConfigMap.forget(store)) {
      log.info("policy ConfigMaps are no longer followed (no policy.kubernetes, or no policy); the one remembered is forgotten");
    }
  }

  /**
   * Removes the ConfigMap remembered in {@code store} at an administrator's request, while nothing
   * runs on the state directory (CRI Resource Manager's {@code --reset-config}): the next start
   * serves the file's policy until the API server answers.
   *
   * @return what was forgotten, for people; empty when nothing was remembered
   */
  public static Optional<String> forgetRemembered(DurableStore store) {
    Optional<RememberedConfigMap> kept = RememberedConfigMap.stored(store);
    if (!RememberedConfigMap.forget(store)) {
      return Optional.empty();
    }
    return Optional.of(kept.map(RememberedConfigMap::describe).orElse("a record that could not be read"));
  }

  private static void awaitFirst(CompletableFuture<Void> synced, CompletableFuture<Throwable> firstFailure,
      Duration wait) {
    try {
      // a refused or failed first list ends the wait: the API server is not there to wait for
      CompletableFuture.anyOf(synced, firstFailure).get(wait.toMillis(), TimeUnit.MILLISECONDS);
    } catch (TimeoutException | ExecutionException e) {
      // the caller sees it: not synced
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Applies the remembered ConfigMap, if one is kept for this node. One the policy now rejects
   * (crigate or the machine changed since) is forgotten, and the start waits for the API server.
   */
  private synchronized boolean resume() {
    Optional<RememberedConfigMap> kept = RememberedConfigMap.recall(store, settings);
    if (kept.isEmpty()) {
      return false;
    }
    RememberedConfigMap remembered = kept.get();
    try {
      policy.reconfigure(ConfigLayer.CLUSTER, remembered.policy());
      policy.metrics().clusterLayerFrom(remembered.source(true));
    } catch (CrigateException e) {
      log.warn("the remembered policy ConfigMap {}/{} no longer applies, forgotten: {}",
          remembered.namespace(), remembered.configMap(), e.getMessage());
      RememberedConfigMap.forget(store);
      return false;
    }
    // lastSeen stays empty: the first list applies what it reads even at the same name and
    // resourceVersion, which another API server (one restored, or rebuilt) may reuse for other data
    log.info("policy configuration from ConfigMap {}/{} (resourceVersion {}) as applied before the last stop (policy {}); "
        + "it stays until the API server says otherwise", remembered.namespace(), remembered.configMap(),
        remembered.resourceVersion(), policy.active());
    return true;
  }

  /**
   * Unlike fabric8's default, a failed first list is retried too: a node agent often starts
   * before, or while, its API server is unreachable, and must pick the ConfigMaps up when it comes.
   * Only a response that cannot be read is final, since reading it again fails the same way.
   */
  private static boolean retries(String what, boolean started, Throwable failure, CompletableFuture<Throwable> firstFailure) {
    firstFailure.complete(failure);
    if (ExceptionHandler.isDeserializationException(failure)) {
      log.error("policy configuration: {} cannot be read, not retrying: {}", what, innermost(failure));
      return false;
    }
    log.warn("policy configuration: reading {} failed{} ({}); retrying", what, started ? " after the first sync" : "",
        innermost(failure));
    return true;
  }

  private static String innermost(Throwable failure) {
    return Causes.innermost(failure).toString();
  }

  @SuppressWarnings("unchecked")
  private static <T> ResourceEventHandler<T> cast(ResourceEventHandler<Object> handler) {
    return (ResourceEventHandler<T>) handler;
  }

  synchronized void reevaluate() {
    if (!nodes.hasSynced() || !configMaps.hasSynced()) {
      return; // half-filled caches could pick a less specific ConfigMap for a moment
    }
    Optional<ConfigMap> chosen = names().inPrecedence().stream()
        .map(name -> configMaps.getStore().getByKey(settings.namespace() + "/" + name))
        .filter(Objects::nonNull)
        .findFirst();
    String seen = chosen.map(cm -> cm.getMetadata().getName() + "@" + cm.getMetadata().getResourceVersion()).orElse("");
    if (seen.equals(lastSeen)) {
      return;
    }
    lastSeen = seen;
    try {
      if (chosen.isEmpty()) {
        log.info("no crigate-config ConfigMap for node {}; the cluster layer is dropped", settings.node());
        policy.clear(ConfigLayer.CLUSTER);
        policy.metrics().clusterLayerFrom(null);
        RememberedConfigMap.forget(store);
      } else {
        ConfigMap cm = chosen.get();
        RememberedConfigMap applied = new RememberedConfigMap(settings.namespace(), settings.node(),
            cm.getMetadata().getName(), cm.getMetadata().getResourceVersion(), section(cm));
        policy.reconfigure(ConfigLayer.CLUSTER, applied.policy());
        policy.metrics().clusterLayerFrom(applied.source(false));
        applied.keep(store);
        log.info("policy configuration from ConfigMap {}/{} applied (policy {})",
            settings.namespace(), cm.getMetadata().getName(), policy.active());
      }
    } catch (CrigateException e) {
      String from = chosen.map(cm -> "ConfigMap %s/%s".formatted(settings.namespace(), cm.getMetadata().getName()))
          .orElse("dropping the cluster configuration");
      String message = "%s rejected, the previous policy configuration stays active: %s".formatted(from, e.getMessage());
      log.error(message);
      events.warn(settings.node(), node(), NodeEvents.REJECTED, message);
    }
  }

  private ConfigMapNames names() {
    Node node = node();
    Map<String, String> labels = node == null || node.getMetadata().getLabels() == null
        ? Map.of() : node.getMetadata().getLabels();
    // crigate's group label first; a node labelled only for CRI Resource Manager keeps its group
    Optional<String> group = Optional.ofNullable(labels.get(settings.groupLabel())).filter(g -> !g.isEmpty())
        .or(() -> Optional.ofNullable(labels.get(ConfigMapNames.CRI_RM_GROUP_LABEL)).filter(g -> !g.isEmpty()));
    return new ConfigMapNames(settings.node(), group);
  }

  private Node node() {
    return nodes.getStore().getByKey(settings.node());
  }

  private static JsonNode section(ConfigMap cm) {
    String name = cm.getMetadata().getName();
    String text = cm.getData() == null ? null : cm.getData().get(DATA_KEY);
    if (text == null) {
      throw new CrigateException.InvalidArgument("data.%s: ConfigMap %s has no '%s' key holding the policy settings"
          .formatted(DATA_KEY, name, DATA_KEY));
    }
    try {
      JsonNode section = YAML.readTree(text);
      section = section == null || section.isMissingNode() || section.isNull() ? YAML.createObjectNode() : section;
      return ConfigMapNames.isCriRm(name) ? CriRmConfigMapPolicy.translate(cm, section) : section;
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("data.%s of ConfigMap %s is not YAML: %s".formatted(DATA_KEY, name, e.getMessage()));
    }
  }

  @Override
  public void close() {
    configMaps.close();
    nodes.close();
  }
}

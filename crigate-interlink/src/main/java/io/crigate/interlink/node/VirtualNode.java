package io.crigate.interlink.node;

import io.crigate.interlink.http.HttpEndpoint;
import io.crigate.interlink.http.HttpServers;
import io.crigate.interlink.http.RunningServer;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.spi.Causes;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Kubernetes node whose pods run through an interLink API: registers the Node, renews its Lease,
 * keeps its pods in step (create, one /status poll for all, graceful delete) and serves the
 * kubelet's log path. Pod events are handled off the informer's thread by a few workers: each pod's
 * in order, different pods at once. The watch asks the API server for this node's pods only.
 */
public final class VirtualNode implements AutoCloseable {

  private static final Logger LOG = LoggerFactory.getLogger(VirtualNode.class);

  private final KubernetesClient kube;
  private final ApiClient api;
  private final NodeSettings settings;
  private final Clock clock;
  private final NodeRegistration registration;
  private final PodSync sync;
  private final PodWorkers events;
  private final ScheduledExecutorService timers =
      Executors.newScheduledThreadPool(2, Thread.ofVirtual().name("vnode-timer-", 0).factory());
  /** Whether the plugin's last ping said it takes a pod's volumes again (crigate's does). */
  private volatile boolean pluginRefreshes;
  private SharedIndexInformer<Pod> informer;
  private RunningServer kubelet;

  public VirtualNode(KubernetesClient kube, ApiClient api, NodeSettings settings, Clock clock) {
    this(kube, api, settings, PodApiAccess.NONE, clock);
  }

  /** @param podApi how the pods it sends reach the API server from where they run */
  public VirtualNode(KubernetesClient kube, ApiClient api, NodeSettings settings, PodApiAccess podApi, Clock clock) {
    this.kube = kube;
    this.api = api;
    this.settings = settings;
    this.clock = clock;
    this.registration = new NodeRegistration(kube, settings);
    ProjectedFiles projected = new ProjectedFiles(kube, new ServiceAccountTokens(kube, clock), this::allocatable, podApi);
    this.sync = new PodSync(kube, api, clock, projected, podApi, new VolumeRefreshes(timers, clock), () -> pluginRefreshes);
    this.events = new PodWorkers(settings.podWorkers());
  }

  /** Registers the node, starts watching its pods and serves the kubelet API on {@code kubeletEndpoint}. */
  public VirtualNode start(HttpEndpoint kubeletEndpoint) {
    kubelet = HttpServers.start(kubeletEndpoint, config -> KubeletLogs.install(config, api, this::pod));
    registration.register(ping(), clock.instant());
    registration.renewLease(clock.instant());
    informer = kube.pods().inAnyNamespace().withField("spec.nodeName", settings.nodeName())
        .runnableInformer(settings.statusInterval().toMillis() * 6);
    informer.exceptionHandler(this::retryAfterStart);
    informer.addEventHandler(new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        dispatch(pod);
      }

      @Override
      public void onUpdate(Pod before, Pod pod) {
        dispatch(pod);
      }

      @Override
      public void onDelete(Pod pod, boolean finalStateUnknown) {
        if (ours(pod)) {
          events.submit(pod.getMetadata().getUid(), () -> sync.delete(pod, false));
        }
      }
    }).run();
    long status = settings.statusInterval().toMillis();
    timers.scheduleWithFixedDelay(() -> guarded("status", () -> {
      sync.unfinishedDeletes().forEach(pod -> events.submit(pod.getMetadata().getUid(), () -> sync.retryDelete(pod)));
      sync.refresh(ourPods());
    }), status, status, TimeUnit.MILLISECONDS);
    long lease = settings.leaseInterval().toMillis();
    timers.scheduleWithFixedDelay(() -> guarded("lease", () -> {
      registration.renewLease(clock.instant());
      registration.updateStatus(ping(), clock.instant());
    }), lease, lease, TimeUnit.MILLISECONDS);
    LOG.info("virtual node {} registered; kubelet API on {}", settings.nodeName(), kubelet.address());
    return this;
  }

  public String kubeletAddress() {
    return kubelet.address();
  }

  private void dispatch(Pod pod) {
    if (ours(pod)) {
      events.submit(pod.getMetadata().getUid(), () -> sync.seen(pod));
    }
  }

  /** The API server already selects by node; this guards against one that ignores the field selector. */
  private boolean ours(Pod pod) {
    return pod.getSpec() != null && settings.nodeName().equals(pod.getSpec().getNodeName());
  }

  private List<Pod> ourPods() {
    return informer.getStore().list().stream().filter(this::ours).toList();
  }

  private Pod pod(String namespace, String name) {
    Pod pod = informer.getStore().getByKey(namespace + "/" + name);
    return pod != null && ours(pod) ? pod : null;
  }

  /** What this node's Node object says is allocatable (a resourceFieldRef of an unset limit). */
  private Map<String, Quantity> allocatable() {
    Node node = kube.nodes().withName(settings.nodeName()).get();
    return node == null || node.getStatus() == null || node.getStatus().getAllocatable() == null ? Map.of()
        : node.getStatus().getAllocatable();
  }

  /** The plugin's ping, or null when it does not answer (the node then reports NotReady). */
  private PingResponse ping() {
    try {
      PingResponse ping = api.ping();
      pluginRefreshes = ping.refreshesVolumes();
      return ping;
    } catch (RuntimeException e) {
      LOG.warn("virtual node {}: ping failed: {}", settings.nodeName(), e.getMessage());
      return null;
    }
  }

  /**
   * fabric8's decision (a failed first list ends the start, a refused watch the informer; a list
   * after the start is retried), with one line naming the cause where fabric8 logs a stack trace.
   */
  boolean retryAfterStart(boolean started, Throwable failure) {
    boolean retry = started && !(failure instanceof WatcherException);
    if (retry) {
      LOG.warn("virtual node {}: listing its pods failed ({}); retrying", settings.nodeName(),
          Causes.innermost(failure).toString());
    }
    return retry;
  }

  private static void guarded(String what, Runnable task) {
    try {
      task.run();
    } catch (RuntimeException e) {
      LOG.warn("{} failed, retrying: {}", what, e.getMessage());
    }
  }

  /** Stops the timers and the pod workers and waits briefly for a call in flight, so none outlives the node. */
  @Override
  public void close() {
    timers.shutdownNow();
    if (informer != null) {
      informer.close();
    }
    events.close();
    try {
      timers.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (kubelet != null) {
      kubelet.close();
    }
  }
}

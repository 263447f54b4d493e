package io.crigate.interlink.node;

import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.PodCreateRequests;
import io.crigate.interlink.wire.PodReferences;
import io.crigate.interlink.wire.PluginCallFailed;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.interlink.wire.RetrievedPodData;
import io.crigate.spi.CrigateException;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatus;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the pods bound to this node in step with the interLink API. A pod is created once: the
 * answer's job id is written to the pod as an annotation before anything else happens to it, so a
 * restarted node resumes the pod instead of creating it again. All pods' states come from ONE
 * /status call per interval; a pod's status is patched only when it changed.
 */
final class PodSync {

  static final String JOB_ANNOTATION = "interlink.crigate.io/job-id";
  /** How soon a refresh that failed is tried again. */
  private static final java.time.Duration REFRESH_RETRY = java.time.Duration.ofSeconds(10);
  private static final Logger LOG = LoggerFactory.getLogger(PodSync.class);

  private final KubernetesClient kube;
  private final ApiClient api;
  private final Clock clock;
  private final ProjectedFiles projected;
  private final PodApiAccess podApi;
  private final VolumeRefreshes refreshes;
  private final BooleanSupplier pluginRefreshes;
  private final Set<String> deleting = ConcurrentHashMap.newKeySet();
  /**
   * Pods this process created (uid to job id): the informer may still hand over a copy from before
   * the annotation (a resync, a queued update), which must not be created again.
   */
  private final Map<String, String> createdHere = new ConcurrentHashMap<>();
  /**
   * Pods already gone from the API server whose delete did not finish (the API or plugin failed or
   * timed out): no event or resync will bring them back, so the status timer retries them.
   */
  private final Map<String, Pod> unfinishedDeletes = new ConcurrentHashMap<>();

  /** @param pluginRefreshes whether the plugin (as its last ping said) takes a pod's volumes again */
  PodSync(KubernetesClient kube, ApiClient api, Clock clock, ProjectedFiles projected, PodApiAccess podApi,
      VolumeRefreshes refreshes, BooleanSupplier pluginRefreshes) {
    this.kube = kube;
    this.api = api;
    this.clock = clock;
    this.projected = projected;
    this.podApi = podApi;
    this.refreshes = refreshes;
    this.pluginRefreshes = pluginRefreshes;
  }

  /**
   * A pod bound to this node was seen (added, updated, or listed after a restart). The caller runs
   * one pod's events one at a time ({@link PodWorkers}); different pods may be here at once.
   */
  void seen(Pod pod) {
    if (pod.getMetadata().getDeletionTimestamp() != null) {
      delete(pod, true);
      return;
    }
    String uid = pod.getMetadata().getUid();
    if (PodPhases.terminal(pod)) {
      refreshes.cancel(uid);
      return;
    }
    if (created(pod)) {
      // a pod created before a restart: its tokens are issued anew and sent at once
      if (!createdHere.containsKey(uid) && !refreshes.scheduled(uid) && hasTokens(pod) && pluginRefreshes.getAsBoolean()) {
        refreshes.schedule(uid, clock.instant(), () -> resend(pod));
      }
      return;
    }
    String job = createdHere.get(uid);
    if (job == null) {
      CreateStruct answer;
      Sent sent;
      try {
        sent = request(pod, false);
        answer = api.create(sent.request());
      } catch (CrigateException.Unavailable e) {
        LOG.warn("pod {}/{}: interLink API unavailable, retrying on the next resync: {}", ns(pod), name(pod), e.getMessage());
        return;
      } catch (RuntimeException e) {
        LOG.info("pod {}/{} was refused: {}", ns(pod), name(pod), e.getMessage());
        patchStatus(pod, PodPhases.refused(pod, e.getMessage(), clock.instant()));
        return;
      }
      job = answer.podJid() == null || answer.podJid().isEmpty() ? "created" : answer.podJid();
      createdHere.put(uid, job);
      scheduleRefresh(pod, sent.refreshAt());
    }
    // a merge patch carries no resourceVersion: the status poll writing at the same time is no
    // conflict. If it fails, the next event or resync of the pod writes it again; nothing is re-created.
    // Patching the pod in hand (not withName) spares fabric8's GET of it before every patch.
    try {
      kube.pods().inNamespace(ns(pod)).resource(pod).patch(PatchContext.of(PatchType.JSON_MERGE),
          Serialization.asJson(Map.of("metadata", Map.of("annotations", Map.of(JOB_ANNOTATION, job)))));
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
      // deleted meanwhile: its delete event, queued behind this one, cancels the job
      LOG.debug("pod {}/{} was deleted before its job id was written", ns(pod), name(pod));
    }
  }

  /** Gone from the API server, or marked for deletion: cancel the job, then finalise the pod. */
  void delete(Pod pod, boolean finalise) {
    String uid = pod.getMetadata().getUid();
    refreshes.cancel(uid);
    if (!deleting.add(uid)) {
      return;
    }
    try {
      if (created(pod) || createdHere.containsKey(uid)) {
        api.delete(pod);
      }
      createdHere.remove(uid);
      unfinishedDeletes.remove(uid);
      if (finalise) {
        kube.pods().inNamespace(ns(pod)).withName(name(pod)).withGracePeriod(0).delete();
      }
    } catch (RuntimeException e) {
      LOG.warn("pod {}/{}: delete not finished, retrying: {}", ns(pod), name(pod), e.getMessage());
      if (!finalise) {
        unfinishedDeletes.put(uid, pod);
      }
    } finally {
      deleting.remove(uid);
    }
  }

  /** Pods gone from the API server whose job may still run: to be deleted again with {@link #retryDelete}. */
  List<Pod> unfinishedDeletes() {
    return List.copyOf(unfinishedDeletes.values());
  }

  /** Deletes the pod again unless a retry queued before this one already finished it. */
  void retryDelete(Pod pod) {
    if (unfinishedDeletes.remove(pod.getMetadata().getUid()) != null) {
      delete(pod, false);
    }
  }

  /** One /status call for every live pod of the node; patches the ones whose status changed. */
  void refresh(List<Pod> pods) {
    List<Pod> live = pods.stream().filter(p -> created(p) && !PodPhases.terminal(p)
        && p.getMetadata().getDeletionTimestamp() == null).toList();
    if (live.isEmpty()) {
      return;
    }
    List<PodStatusReport> reports = api.status(live);
    Map<String, PodStatusReport> byUid = new LinkedHashMap<>();
    reports.forEach(r -> byUid.put(r.uid(), r));
    for (Pod pod : live) {
      PodStatusReport report = byUid.get(pod.getMetadata().getUid());
      if (report == null || report.name() == null || report.name().isEmpty()) {
        continue;
      }
      PodStatus next = PodPhases.of(pod, report, clock.instant());
      if (changed(pod.getStatus(), next)) {
        patchStatus(pod, next);
      }
    }
  }

  static boolean created(Pod pod) {
    var annotations = pod.getMetadata().getAnnotations();
    return annotations != null && annotations.containsKey(JOB_ANNOTATION);
  }

  /** Transition times are left out of the comparison: a poll that finds nothing new writes nothing. */
  private static boolean changed(PodStatus before, PodStatus after) {
    if (before == null) {
      return true;
    }
    return !Objects.equals(before.getPhase(), after.getPhase())
        || !Objects.equals(before.getContainerStatuses(), after.getContainerStatuses())
        || !Objects.equals(before.getInitContainerStatuses(), after.getInitContainerStatuses());
  }

  private void patchStatus(Pod pod, PodStatus status) {
    try {
      kube.pods().inNamespace(ns(pod)).resource(pod).subresource("status")
          .patch(PatchContext.of(PatchType.JSON), StatusPatch.replace(status));
    } catch (KubernetesClientException e) {
      LOG.warn("pod {}/{}: status not written: {}", ns(pod), name(pod), e.getMessage());
    }
  }

  /**
   * Sends the pod's projected volumes again, with fresh tokens, as a /create marked with {@link
   * RetrievedPodData#VOLUME_REFRESH_ANNOTATION}. The pod is read again first: one deleted or ended meanwhile gets nothing.
   */
  private void resend(Pod seen) {
    String uid = seen.getMetadata().getUid();
    Pod pod = kube.pods().inNamespace(ns(seen)).withName(name(seen)).get();
    if (pod == null || !uid.equals(pod.getMetadata().getUid()) || pod.getMetadata().getDeletionTimestamp() != null
        || PodPhases.terminal(pod) || !pluginRefreshes.getAsBoolean()) {
      return;
    }
    Pod marked = new PodBuilder(pod).editMetadata().addToAnnotations(RetrievedPodData.VOLUME_REFRESH_ANNOTATION, clock.instant().toString())
        .endMetadata().build();
    try {
      Sent sent = request(marked, true);
      api.create(sent.request());
      LOG.info("pod {}/{}: projected volumes sent again with fresh tokens; next time at {}", ns(pod), name(pod),
          sent.refreshAt());
      scheduleRefresh(pod, sent.refreshAt());
    } catch (PluginCallFailed e) {
      if (e.status() == 404) {
        LOG.info("pod {}/{}: the plugin no longer knows it; its volumes are not sent again", ns(pod), name(pod));
        return;
      }
      LOG.warn("pod {}/{}: volumes not sent again ({}), retrying", ns(pod), name(pod), e.status());
      refreshes.schedule(uid, clock.instant().plus(REFRESH_RETRY), () -> resend(pod));
    } catch (RuntimeException e) {
      LOG.warn("pod {}/{}: volumes not sent again, retrying: {}", ns(pod), name(pod), e.getMessage());
      refreshes.schedule(uid, clock.instant().plus(REFRESH_RETRY), () -> resend(pod));
    }
  }

  private void scheduleRefresh(Pod pod, Instant at) {
    if (at != null) {
      refreshes.schedule(pod.getMetadata().getUid(), at, () -> resend(pod));
    }
  }

  private static boolean hasTokens(Pod pod) {
    return pod.getSpec().getVolumes() != null && pod.getSpec().getVolumes().stream()
        .filter(v -> v.getProjected() != null && v.getProjected().getSources() != null)
        .anyMatch(v -> v.getProjected().getSources().stream().anyMatch(src -> src.getServiceAccountToken() != null));
  }

  /**
   * The pod with every ConfigMap and Secret it names, read from the API server as the VK does, and
   * its projected volumes' files (tokens included; the request is never logged).
   */
  private Sent request(Pod pod, boolean refresh) {
    PodReferences refs = PodReferences.of(pod);
    List<ConfigMap> configMaps = refs.configMaps().stream()
        .map(n -> kube.configMaps().inNamespace(ns(pod)).withName(n).get()).filter(Objects::nonNull).toList();
    List<Secret> secrets = refs.secrets().stream()
        .map(n -> kube.secrets().inNamespace(ns(pod)).withName(n).get()).filter(Objects::nonNull).toList();
    ProjectedFiles.Projected files = projected.of(pod, pluginRefreshes.getAsBoolean() || refresh);
    return new Sent(new PodCreateRequests(podApi.withServiceEnv(ProjectedFiles.withDownwardVolumesProjected(pod)),
        configMaps, secrets, files.maps(), ""), files.refreshAt());
  }

  /** A create request and when its tokens are to be sent again (null: never). */
  private record Sent(PodCreateRequests request, Instant refreshAt) {

    @Override
    public String toString() {
      return "Sent[pod=" + request.pod().getMetadata().getUid() + ", refreshAt=" + refreshAt + "]";
    }
  }

  private static String ns(Pod pod) {
    return pod.getMetadata().getNamespace();
  }

  private static String name(Pod pod) {
    return pod.getMetadata().getName();
  }
}

package io.crigate.interlink;

import io.crigate.interlink.wire.CreateStruct;
import io.crigate.interlink.wire.LogRequest;
import io.crigate.interlink.wire.PingResponse;
import io.crigate.interlink.wire.PluginApi;
import io.crigate.interlink.wire.PodStatusReport;
import io.crigate.interlink.wire.RetrievedPodData;
import io.fabric8.kubernetes.api.model.ContainerStateBuilder;
import io.fabric8.kubernetes.api.model.ContainerStatusBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;

/**
 * Keeps what the HTTP layer decoded and answers with fixed values, so the contract tests see the
 * wire on both sides of the routes. The plugin's behaviour is tested against real Slurm (PluginSlurmIT).
 */
public final class RecordingPlugin implements PluginApi {

  public final List<RetrievedPodData> created = new ArrayList<>();
  public final List<Pod> deleted = new ArrayList<>();
  public final List<List<Pod>> statusAsked = new ArrayList<>();
  public final List<LogRequest> logsAsked = new ArrayList<>();
  /** "create NAME", "delete NAME" and "delete failed NAME" in the order the calls arrived. */
  public final List<String> calls = new CopyOnWriteArrayList<>();
  /** A create of a pod named here waits until its latch is opened (the plugin is slow for that pod). */
  public final Map<String, CountDownLatch> holdCreate = new ConcurrentHashMap<>();
  public int pings;
  /** What the ping says about taking a created pod's volumes again (crigate's plugin does). */
  public volatile boolean volumeRefresh = true;
  /** When set, every pod is reported running (else terminated with exit code 3). */
  public volatile boolean running;
  /** While set, deletes fail as a broken plugin's would (answered 500). */
  public volatile boolean failDelete;

  @Override
  public CreateStruct create(RetrievedPodData pod) {
    String name = pod.pod().getMetadata().getName();
    CountDownLatch hold = holdCreate.get(name);
    try {
      if (hold != null) {
        hold.await();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while holding the create of " + name, e);
    }
    synchronized (this) {
      calls.add("create " + name);
      created.add(pod);
      return new CreateStruct(pod.pod().getMetadata().getUid(), "job-" + created.size());
    }
  }

  @Override
  public synchronized String delete(Pod pod) {
    if (failDelete) {
      calls.add("delete failed " + pod.getMetadata().getName());
      throw new IllegalStateException("scancel failed");
    }
    calls.add("delete " + pod.getMetadata().getName());
    deleted.add(pod);
    return "deleted";
  }

  @Override
  public synchronized List<PodStatusReport> status(List<Pod> pods) {
    statusAsked.add(pods);
    return pods.stream().map(p -> new PodStatusReport(p.getMetadata().getName(), p.getMetadata().getUid(),
        p.getMetadata().getNamespace(), "42",
        List.of(new ContainerStatusBuilder().withName("main").withReady(false).withRestartCount(0).withImage("busybox")
            .withImageID("").withState(running
                ? new ContainerStateBuilder().withNewRunning().withStartedAt("2026-07-14T10:00:00Z").endRunning().build()
                : new ContainerStateBuilder().withNewTerminated().withExitCode(3).withReason("Error")
                    .withStartedAt("2026-07-14T10:00:00Z").withFinishedAt("2026-07-14T10:00:01Z").endTerminated().build())
            .build()),
        List.of())).toList();
  }

  @Override
  public synchronized void logs(LogRequest request, OutputStream out) throws java.io.IOException {
    logsAsked.add(request);
    out.write("line-1\nline-2\n".getBytes(StandardCharsets.UTF_8));
  }

  @Override
  public synchronized PingResponse ping() {
    pings++;
    PingResponse ping = PingResponse.ok(new PingResponse.Resources("8", "16Gi", "110", List.of()),
        List.of(new PingResponse.Taint("virtual-node.interlink/no-schedule", "true", "NoSchedule")));
    return volumeRefresh ? ping.withVolumeRefresh() : ping;
  }
}

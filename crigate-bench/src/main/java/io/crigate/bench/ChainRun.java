package io.crigate.bench;

import io.crigate.scheduler.sim.PodArrival;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Replays a trace in real time against the chain: each pod is created unbound in the API server at
 * its arrival (trace time × scale), placed by the scheduler, bound ({@code spec.nodeName}) by a
 * binder thread while the scheduler goes on to the next pod (as kube-scheduler's binding cycle
 * runs apart from its scheduling cycle), then started on its node, run for its trace time × scale,
 * stopped, removed and deleted.
 */
final class ChainRun {

  /** One started pod: where, and how its start went. */
  record Started(String pod, String node, ChainNode.StartedPod start) {

    boolean pulled() {
      return start.pulled();
    }

    Duration latency() {
      return start.startLatency();
    }
  }

  /**
   * @param podsPerNodeCv CV across nodes of the pods bound, sampled after each arrival, averaged
   * @param cpuPerNodeCv the same for requested CPU
   * @param mostOnOneNode the most pods any node ran at once
   * @param failedStarts pods whose start or stop through crigate failed (each is printed to stderr)
   */
  record Outcome(List<Started> started, int unschedulable, double podsPerNodeCv, double cpuPerNodeCv,
      int mostOnOneNode, int failedStarts) {

    int pulls() {
      return (int) started.stream().filter(Started::pulled).count();
    }

    Samples startLatencies() {
      Samples samples = new Samples();
      started.forEach(s -> samples.add(s.latency().toNanos()));
      return samples;
    }

    /**
     * The starts that pulled nothing: the same work on every node whatever the scorer, so their
     * latency shows how loaded the machine was during the run, not where the scorer put the pods.
     */
    Samples startLatenciesWithoutPull() {
      Samples samples = new Samples();
      started.stream().filter(s -> !s.pulled()).forEach(s -> samples.add(s.latency().toNanos()));
      return samples;
    }
  }

  private final KubernetesClient kube;
  private final ChainScheduler scheduler;
  private final List<ChainNode> nodes;
  private final double timeScale;

  ChainRun(KubernetesClient kube, ChainScheduler scheduler, List<ChainNode> nodes, double timeScale) {
    this.kube = kube;
    this.scheduler = scheduler;
    this.nodes = nodes;
    this.timeScale = timeScale;
  }

  Outcome replay(List<PodArrival> trace) throws InterruptedException, ExecutionException {
    Queue<Started> started = new ConcurrentLinkedQueue<>();
    AtomicInteger failed = new AtomicInteger();
    Queue<Future<?>> lifecycles = new ConcurrentLinkedQueue<>();
    int unschedulable = 0;
    int most = 0;
    double podsCv = 0;
    double cpuCv = 0;
    long begin = System.nanoTime();
    try (ExecutorService binder = Executors.newSingleThreadExecutor();
        ExecutorService pods = Executors.newVirtualThreadPerTaskExecutor()) {
      for (PodArrival arrival : trace) {
        long due = begin + seconds(arrival.atSeconds());
        TimeUnit.NANOSECONDS.sleep(Math.max(0, due - System.nanoTime()));
        Pod pod = kube.pods().resource(ChainExperiment.pod(arrival)).create();
        int n = scheduler.place(arrival, pod);
        podsCv += scheduler.podsCv() / trace.size();
        cpuCv += scheduler.cpuCv() / trace.size();
        if (n < 0) {
          unschedulable++;
          kube.pods().resource(pod).delete();
          continue;
        }
        most = Math.max(most, scheduler.podsOn(n));
        binder.submit(() -> {
          kube.pods().resource(pod).edit(p -> new PodBuilder(p).editSpec().withNodeName(nodes.get(n).name).endSpec().build());
          lifecycles.add(pods.submit(() -> {
            lifecycle(arrival, n, started, failed);
            return null;
          }));
        });
      }
      binder.shutdown();
      binder.awaitTermination(1, TimeUnit.HOURS);
      for (Future<?> lifecycle : lifecycles) {
        lifecycle.get();
      }
    }
    return new Outcome(new ArrayList<>(started), unschedulable, podsCv, cpuCv, most, failed.get());
  }

  /** A start or stop that fails (a runtime error on a loaded machine) is counted and reported, not fatal to the run. */
  private void lifecycle(PodArrival arrival, int n, Queue<Started> started, AtomicInteger failed)
      throws IOException, InterruptedException {
    ChainNode node = nodes.get(n);
    long runNanos = seconds(arrival.durationSeconds());
    try {
      ChainNode.StartedPod pod = node.startPod(arrival.pod(), arrival.image(),
          (long) Math.ceil(runNanos / 1e9));
      started.add(new Started(arrival.pod(), node.name, pod));
      TimeUnit.NANOSECONDS.sleep(runNanos);
      node.stopPod(pod);
    } catch (RuntimeException startFailed) {
      failed.incrementAndGet();
      System.err.printf("pod %s on %s failed: %s%n", arrival.pod(), node.name, startFailed);
    } finally {
      kube.pods().inNamespace(ChainExperiment.NAMESPACE).withName(arrival.pod()).delete();
      scheduler.release(n, arrival);
    }
  }

  private long seconds(double traceSeconds) {
    return (long) (traceSeconds * timeScale * 1e9);
  }
}

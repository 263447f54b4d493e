package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.*;
import io.crigate.spi.adjust.ResourceAnnotation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.function.Supplier;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Shell pods started through crigate for the policy tests, with the webhook's resource annotation,
 * and what the kernel lets a process inside them run on. Registered as an extension, it removes
 * the pods after each test.
 */
final class PolicyPods implements AfterEachCallback {

  private static final Pattern ALLOWED = Pattern.compile("Cpus_allowed_list:\\s*(\\S+)");

  private final Supplier<CrigateProcess> crigate;
  private final Path podLogs;
  private final Infra infra;
  private final List<String> pods = new ArrayList<>();
  private final List<Started> running = new ArrayList<>();

  PolicyPods(CrigateExtension crigate, Infra infra) {
    this(crigate::process, crigate.workDir().resolve("pods"), infra); // the class's crigate runs before test instances exist
  }

  /** Over a crigate the test starts itself; pod logs go under {@code podLogs}. */
  PolicyPods(Supplier<CrigateProcess> crigate, Path podLogs, Infra infra) {
    this.crigate = crigate;
    this.podLogs = podLogs;
    this.infra = infra;
  }

  /** A running shell container in a fresh pod whose webhook annotation declares these requests and limits. */
  String startShell(String name, Map<String, String> requests, Map<String, String> limits) {
    return startShell(name, requests, limits, Map.of()).containerId();
  }

  /** A started shell container and the pod it runs in. */
  record Started(String podId, String containerId) {}

  /** As above, with more pod annotations. */
  Started startShell(String name, Map<String, String> requests, Map<String, String> limits, Map<String, String> annotations) {
    return startShellIn(CriObjects.NAMESPACE, name, requests, limits, annotations);
  }

  /** As above, in a pod of {@code namespace}. */
  Started startShellIn(String namespace, String name, Map<String, String> requests, Map<String, String> limits,
      Map<String, String> annotations) {
    Map<String, String> all = new HashMap<>(annotations);
    all.put(ResourceAnnotation.KEY, ResourceAnnotation.format(Map.of(name, Map.of("requests", requests, "limits", limits))));
    PodSandboxConfig base = hostNetworkPod("policy-" + name, podLogs);
    PodSandboxConfig pod = base.toBuilder().setMetadata(base.getMetadata().toBuilder().setNamespace(namespace))
        .putAllAnnotations(all).build();
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.get().cri().runtime();
    String podId = runtime.runPodSandbox(runPod(pod, "")).getPodSandboxId();
    pods.add(podId);
    crigate.get().cri().images().pullImage(pull(infra.baseImage(), pod, ""));
    String id = runtime.createContainer(create(podId,
        shellContainer(name, infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done"), pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    Started started = new Started(podId, id);
    running.add(started);
    return started;
  }

  /** Stops and removes a container, then its pod, in the kubelet's order. */
  void remove(Started started) {
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.get().cri().runtime();
    runtime.stopContainer(StopContainerRequest.newBuilder().setContainerId(started.containerId()).setTimeout(5).build());
    runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(started.containerId()).build());
    crigate.get().cri().removePod(started.podId());
    pods.remove(started.podId());
    running.remove(started);
  }

  @Override
  public void afterEach(ExtensionContext context) {
    removeAll();
  }

  /**
   * Removes every container and pod started here, containers first as the kubelet does, so the
   * policy releases what they held even when a test failed before removing them.
   */
  void removeAll() {
    List.copyOf(running).forEach(this::remove);
    pods.forEach(id -> crigate.get().cri().removePod(id));
    pods.clear();
  }

  /** The CPUs a fresh process in the container may run on, as the kernel reports them. */
  String allowedCpus(String containerId) {
    ExecSyncResponse exec = crigate.get().cri().runtime().execSync(ExecSyncRequest.newBuilder().setContainerId(containerId)
        .addCmd("grep").addCmd("Cpus_allowed_list").addCmd("/proc/self/status").setTimeout(10).build());
    assertThat(exec.getExitCode()).as(exec.getStderr().toStringUtf8()).isZero();
    Matcher m = ALLOWED.matcher(exec.getStdout().toStringUtf8());
    assertThat(m.find()).as(exec.getStdout().toStringUtf8()).isTrue();
    return m.group(1);
  }
}

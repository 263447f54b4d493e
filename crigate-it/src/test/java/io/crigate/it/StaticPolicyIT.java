package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.crigate.api.cri.v1.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The static policy on real containerd, through {@code crigate serve}: what a process inside each
 * container is allowed to run on, before and after a crash of crigate and a live switch to
 * {@code none}. This machine has two CPUs: 0 is reserved (it stays in the shared pool, as with the
 * kubelet's static policy) and 1 is the one that can be given out.
 */
class StaticPolicyIT {

  static final Infra infra = Infra.fromEnvironment();
  static final Pattern ALLOWED = Pattern.compile("Cpus_allowed_list:\\s*(\\S+)");

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA())
      .withConfig("""
          policy:
            active: static
            reservedCpus: "0"
            configFile: ${WORK_DIR}/policy.yaml
            kubeletCpuManagerState: ${WORK_DIR}/no-kubelet-cpu-manager-state
          """);

  final List<String> pods = new ArrayList<>();

  @AfterEach
  void removePods() {
    pods.forEach(id -> crigate.cri().removePod(id));
  }

  @Test
  void guaranteedGetsCpu1AloneBurstableSharesTheRestAndNoneWidensBoth() throws Exception {
    String guaranteed = startShell("guaranteed", Map.of("cpu", "1", "memory", "64Mi"), Map.of("cpu", "1", "memory", "64Mi"));
    String burstable = startShell("burstable", Map.of("cpu", "100m"), Map.of());

    // reserved 0 is never given out, so the one exclusive CPU is 1; the shared pool keeps 0
    assertThat(allowedCpus(guaranteed)).isEqualTo("1");
    assertThat(allowedCpus(burstable)).isEqualTo("0");

    // kill -9 and restart: the allocation comes back from the state DB, checked against containerd
    crigate.process().killHard();
    crigate.process().restart();
    assertThat(allowedCpus(guaranteed)).isEqualTo("1");
    assertThat(allowedCpus(burstable)).isEqualTo("0");
    assertThat(crigate.process().logTail()).contains("synchronized with").doesNotContain("could not update");

    Files.writeString(policyFile(), "active: none\n");

    await("both containers widened after the switch to none").atMost(Duration.ofSeconds(60))
        .until(() -> allowedCpus(guaranteed).equals("0-1") && allowedCpus(burstable).equals("0-1"));
  }

  static Path policyFile() {
    return crigate.workDir().resolve("policy.yaml");
  }

  /** A running shell container in a fresh pod whose webhook annotation declares these requests and limits. */
  String startShell(String name, Map<String, String> requests, Map<String, String> limits) {
    String annotation = io.crigate.spi.adjust.ResourceAnnotation.format(
        Map.of(name, Map.of("requests", requests, "limits", limits)));
    PodSandboxConfig pod = hostNetworkPod("policy-" + name, crigate.workDir().resolve("pods")).toBuilder()
        .putAnnotations(io.crigate.spi.adjust.ResourceAnnotation.KEY, annotation).build();
    RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime = crigate.cri().runtime();
    String podId = runtime.runPodSandbox(runPod(pod, "")).getPodSandboxId();
    pods.add(podId);
    crigate.cri().images().pullImage(pull(infra.baseImage(), pod, ""));
    String id = runtime.createContainer(create(podId,
        shellContainer(name, infra.baseImage(), "trap 'exit 0' TERM; while :; do sleep 1; done"), pod)).getContainerId();
    runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    return id;
  }

  /** The CPUs a fresh process in the container may run on, as the kernel reports them. */
  static String allowedCpus(String containerId) {
    ExecSyncResponse exec = crigate.cri().runtime().execSync(ExecSyncRequest.newBuilder().setContainerId(containerId)
        .addCmd("grep").addCmd("Cpus_allowed_list").addCmd("/proc/self/status").setTimeout(10).build());
    assertThat(exec.getExitCode()).as(exec.getStderr().toStringUtf8()).isZero();
    Matcher m = ALLOWED.matcher(exec.getStdout().toStringUtf8());
    assertThat(m.find()).as(exec.getStdout().toStringUtf8()).isTrue();
    return m.group(1);
  }
}

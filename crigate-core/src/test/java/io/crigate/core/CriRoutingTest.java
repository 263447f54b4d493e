package io.crigate.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.*;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class CriRoutingTest {

  @TempDir Path stateDir;
  RouterHarness crigate;

  @BeforeEach
  void start() {
    crigate = RouterHarness.start(stateDir);
  }

  @AfterEach
  void stop() {
    crigate.close();
  }

  @Test
  void runPodSandboxGoesToTheBackendBoundToItsHandlerWithTheBackendsHandlerName() {
    String onAlpha = crigate.runPod("web", "");
    assertThat(crigate.alpha.lastHandler()).isEmpty();
    String onBeta = crigate.runPod("batch", "fast");
    // "fast" is bound to beta, which knows the handler as "runsc".
    assertThat(crigate.beta.lastHandler()).isEqualTo("runsc");

    assertThat(onAlpha).startsWith("alpha-");
    assertThat(onBeta).startsWith("beta-");
    assertThat(crigate.state.sandboxes().get(onBeta).handler()).isEqualTo("fast");
  }

  @Test
  void unknownHandlerIsInvalidArgumentNamingTheKnownHandlers() {
    assertThatThrownBy(() -> crigate.runPod("web", "gpu"))
        .isInstanceOfSatisfying(StatusRuntimeException.class, e -> {
          assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
          assertThat(e.getStatus().getDescription()).contains("\"gpu\"", "\"\" (default)", "\"fast\"");
        });
    assertThat(crigate.alpha.calls() + crigate.beta.calls()).isZero();
  }

  @Test
  void laterCallsGoToTheOwnerOfTheSandboxAndItsContainers() {
    String sandbox = crigate.runPod("batch", "fast");
    String container = crigate.createContainer(sandbox, "worker");
    crigate.runtime.startContainer(StartContainerRequest.newBuilder().setContainerId(container).build());

    ExecSyncResponse exec = crigate.runtime.execSync(ExecSyncRequest.newBuilder().setContainerId(container).addCmd("true").build());
    assertThat(exec.getStdout().toStringUtf8()).isEqualTo("beta");
    assertThat(crigate.runtime.exec(ExecRequest.newBuilder().setContainerId(container).addCmd("sh").setStdout(true).build()).getUrl())
        .isEqualTo("http://beta.invalid/exec/" + container);
    assertThat(crigate.runtime.portForward(PortForwardRequest.newBuilder().setPodSandboxId(sandbox).build()).getUrl())
        .isEqualTo("http://beta.invalid/portforward/" + sandbox);
    assertThat(crigate.runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build())
        .getStatus().getState()).isEqualTo(ContainerState.CONTAINER_RUNNING);
    assertThat(crigate.state.containers().get(container).sandboxId()).isEqualTo(sandbox);
  }

  @Test
  void ownershipSurvivesARestartWithoutReconcile() {
    String sandbox = crigate.runPod("batch", "fast");
    String container = crigate.createContainer(sandbox, "worker");
    crigate = crigate.restart(false);
    int betaCallsBefore = crigate.beta.calls();
    int alphaCallsBefore = crigate.alpha.calls();

    crigate.runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build());

    // Answered from the reloaded record: exactly one call, to beta, and no probe of alpha.
    assertThat(crigate.beta.calls() - betaCallsBefore).isEqualTo(1);
    assertThat(crigate.alpha.calls()).isEqualTo(alphaCallsBefore);
  }

  @Test
  void reconcileAdoptsWhatBackendsReportAndForgetsWhatAnAnsweringBackendLost() {
    String kept = crigate.runPod("kept", "");
    String lost = crigate.runPod("lost", "");
    String created = crigate.runPod("created-while-down", "fast");
    crigate.state.sandboxes().remove(created);   // as if crigate crashed before writing its record
    crigate.alpha.forget(lost);

    crigate = crigate.restart(true);

    assertThat(crigate.state.sandboxes().find(kept)).isPresent();
    assertThat(crigate.state.sandboxes().find(lost)).isEmpty();
    assertThat(crigate.state.sandboxes().get(created).backend()).isEqualTo("beta");
    // beta reports handler "runsc", which crigate maps back to the kubelet's "fast".
    assertThat(crigate.state.sandboxes().get(created).handler()).isEqualTo("fast");
  }

  @Test
  void reconcileKeepsTheRecordsOfAnUnreachableBackend() {
    String sandbox = crigate.runPod("batch", "fast");
    String container = crigate.createContainer(sandbox, "worker");
    crigate.beta.setAvailable(false);

    crigate = crigate.restart(true);

    assertThat(crigate.state.sandboxes().find(sandbox)).isPresent();
    assertThat(crigate.state.containers().find(container)).isPresent();
  }

  @Test
  void anIdMissIsFoundByProbingAndAdopted() {
    String sandbox = crigate.runPod("batch", "fast");
    String container = crigate.createContainer(sandbox, "worker");
    crigate.state.sandboxes().remove(sandbox);   // drops the container record too

    ContainerStatusResponse status = crigate.runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build());

    assertThat(status.getStatus().getId()).isEqualTo(container);
    assertThat(crigate.state.containers().get(container)).satisfies(record -> {
      assertThat(record.backend()).isEqualTo("beta");
      assertThat(record.sandboxId()).isEqualTo(sandbox);
    });
  }

  @Test
  void anIdNoBackendKnowsIsNotFound() {
    assertThat(codeOf(() -> crigate.runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId("nope").build())))
        .isEqualTo(Status.Code.NOT_FOUND);
  }

  @Test
  void anIdMissWhileABackendIsDownIsUnavailableNotNotFound() {
    crigate.beta.setAvailable(false);

    StatusRuntimeException e = catchStatus(() ->
        crigate.runtime.podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId("nope").build()));

    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(e.getStatus().getDescription()).contains("beta");
  }

  @Test
  void stopAndRemoveOfAnUnknownSandboxSucceed() {
    crigate.runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId("gone").build());
    crigate.runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId("gone").build());
    crigate.runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId("gone").build());
    // Every backend was asked (the probe), so "gone" really means gone everywhere.
    assertThat(crigate.alpha.calls()).isEqualTo(3);
    assertThat(crigate.beta.calls()).isEqualTo(3);
  }

  @Test
  void removeForgetsTheSandboxAndItsContainersOnceTheBackendConfirms() {
    String sandbox = crigate.runPod("batch", "fast");
    String container = crigate.createContainer(sandbox, "worker");
    crigate.beta.setAvailable(false);
    assertThat(codeOf(() -> crigate.runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build())))
        .isEqualTo(Status.Code.UNAVAILABLE);
    assertThat(crigate.state.sandboxes().find(sandbox)).isPresent();

    crigate.beta.setAvailable(true);
    crigate.runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build());

    assertThat(crigate.state.sandboxes().find(sandbox)).isEmpty();
    assertThat(crigate.state.containers().find(container)).isEmpty();
  }

  /**
   * A removal reaches disk only with the next transaction (GatewayState), so a kill -9 right after
   * one leaves the record of an object the backend no longer has: harmless, as the reconcile at start
   * forgets it, and without a reconcile a call on it gets the backend's NOT_FOUND and a removal drops it.
   */
  @Test
  void aRemovalNotYetOnDiskWhenCrigateCrashesLeavesARecordThatIsReconciledAway(@TempDir Path crashes) throws Exception {
    String kept = crigate.runPod("kept", "");
    String sandbox = crigate.runPod("web", "");
    String container = crigate.createContainer(sandbox, "app");
    crigate.runtime.removeContainer(RemoveContainerRequest.newBuilder().setContainerId(container).build());
    crigate.runtime.stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build());
    crigate.runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build());
    assertThat(crigate.state.sandboxes().find(sandbox)).isEmpty();

    try (RouterHarness crashed = crigate.crashedCopy(crashes.resolve("without-reconcile"), false)) {
      assertThat(crashed.state.sandboxes().find(sandbox)).as("the removal had not reached disk").isPresent();
      assertThat(crashed.state.containers().find(container)).isPresent();
      assertThat(codeOf(() -> crashed.runtime.containerStatus(ContainerStatusRequest.newBuilder().setContainerId(container).build())))
          .isEqualTo(Status.Code.NOT_FOUND);
      crashed.runtime.removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(sandbox).build());
      assertThat(crashed.state.sandboxes().find(sandbox)).isEmpty();
      assertThat(crashed.state.containers().find(container)).isEmpty();
    }
    try (RouterHarness crashed = crigate.crashedCopy(crashes.resolve("with-reconcile"), true)) {
      assertThat(crashed.state.sandboxes().all()).extracting(record -> record.id()).containsExactly(kept);
      assertThat(crashed.state.containers().all()).isEmpty();
    }
  }

  record Case(String name, Consumer<RuntimeServiceGrpc.RuntimeServiceBlockingStub> call, String field) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> invalidRequests() {
    ContainerConfig noImage = ContainerConfig.newBuilder().setMetadata(ContainerMetadata.newBuilder().setName("c")).build();
    return Stream.of(
        new Case("RunPodSandbox without config", s -> s.runPodSandbox(RunPodSandboxRequest.getDefaultInstance()), "config"),
        new Case("RunPodSandbox without metadata",
            s -> s.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(PodSandboxConfig.getDefaultInstance()).build()),
            "config.metadata"),
        new Case("RunPodSandbox without pod name",
            s -> s.runPodSandbox(RunPodSandboxRequest.newBuilder().setConfig(PodSandboxConfig.newBuilder()
                .setMetadata(PodSandboxMetadata.newBuilder().setNamespace("ns"))).build()),
            "config.metadata.name"),
        new Case("StopPodSandbox without id", s -> s.stopPodSandbox(StopPodSandboxRequest.getDefaultInstance()), "pod_sandbox_id"),
        new Case("RemovePodSandbox without id", s -> s.removePodSandbox(RemovePodSandboxRequest.getDefaultInstance()), "pod_sandbox_id"),
        new Case("PodSandboxStatus without id", s -> s.podSandboxStatus(PodSandboxStatusRequest.getDefaultInstance()), "pod_sandbox_id"),
        new Case("CreateContainer without sandbox id",
            s -> s.createContainer(CreateContainerRequest.newBuilder().setConfig(noImage).build()), "pod_sandbox_id"),
        new Case("CreateContainer without config",
            s -> s.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId("p").build()), "config"),
        new Case("CreateContainer without image",
            s -> s.createContainer(CreateContainerRequest.newBuilder().setPodSandboxId("p").setConfig(noImage).build()),
            "config.image.image"),
        new Case("StartContainer without id", s -> s.startContainer(StartContainerRequest.getDefaultInstance()), "container_id"),
        new Case("ContainerStatus with blank id",
            s -> s.containerStatus(ContainerStatusRequest.newBuilder().setContainerId("  ").build()), "container_id"),
        new Case("ExecSync without cmd",
            s -> s.execSync(ExecSyncRequest.newBuilder().setContainerId("c").build()), "cmd"),
        new Case("PortForward without id", s -> s.portForward(PortForwardRequest.getDefaultInstance()), "pod_sandbox_id"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidRequests")
  void invalidRequestsAreRejectedNamingTheFieldWithoutCallingABackend(Case c) {
    StatusRuntimeException e = catchStatus(() -> c.call().accept(crigate.runtime));
    assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
    assertThat(e.getStatus().getDescription()).isEqualTo(c.field() + " is required");
    assertThat(crigate.alpha.calls() + crigate.beta.calls()).isZero();
  }

  static StatusRuntimeException catchStatus(Runnable call) {
    try {
      call.run();
    } catch (StatusRuntimeException e) {
      return e;
    }
    throw new AssertionError("expected the call to fail");
  }

  static Status.Code codeOf(Runnable call) {
    return catchStatus(call).getStatus().getCode();
  }
}

package io.crigate.it;

import static io.crigate.it.CriObjects.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.*;
import io.grpc.CallOptions;
import io.grpc.MethodDescriptor;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ClientCalls;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Bad requests get a clear status, and crigate keeps serving after each of them. */
class MalformedRequestIT {

  static final Infra infra = Infra.fromEnvironment();

  @RegisterExtension
  static final CrigateExtension crigate = CrigateExtension.routing("default:" + infra.containerdA());

  record Case(String name, Consumer<CriConnection> call, Status.Code expected) {
    @Override
    public String toString() {
      return name;
    }
  }

  static Stream<Case> cases() {
    PodSandboxConfig pod = hostNetworkPod("malformed", crigate.workDir().resolve("pods"));
    ContainerConfig container = shellContainer("c", infra.baseImage(), "true");
    return Stream.of(
        new Case("RunPodSandbox without a config",
            cri -> cri.runtime().runPodSandbox(RunPodSandboxRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT),
        new Case("RunPodSandbox without metadata",
            cri -> cri.runtime().runPodSandbox(runPod(pod.toBuilder().clearMetadata().build(), "")), Status.Code.INVALID_ARGUMENT),
        new Case("RunPodSandbox with a handler no backend serves",
            cri -> cri.runtime().runPodSandbox(runPod(pod, "no-such-handler")), Status.Code.INVALID_ARGUMENT),
        new Case("CreateContainer without a pod id",
            cri -> cri.runtime().createContainer(create("", container, pod)), Status.Code.INVALID_ARGUMENT),
        new Case("CreateContainer in a pod that does not exist",
            cri -> cri.runtime().createContainer(create("0123456789abcdef", container, pod)), Status.Code.NOT_FOUND),
        new Case("StartContainer without an id",
            cri -> cri.runtime().startContainer(StartContainerRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT),
        new Case("ContainerStatus without an id",
            cri -> cri.runtime().containerStatus(ContainerStatusRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT),
        new Case("ContainerStatus of a container that does not exist",
            cri -> cri.runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId("0123456789abcdef").build()),
            Status.Code.NOT_FOUND),
        new Case("StopPodSandbox without an id",
            cri -> cri.runtime().stopPodSandbox(StopPodSandboxRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT),
        new Case("PodSandboxStatus without an id",
            cri -> cri.runtime().podSandboxStatus(PodSandboxStatusRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT),
        new Case("ExecSync without a container id",
            cri -> cri.runtime().execSync(ExecSyncRequest.newBuilder().addCmd("true").build()), Status.Code.INVALID_ARGUMENT),
        new Case("PullImage without an image",
            cri -> cri.images().pullImage(PullImageRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT),
        new Case("ImageStatus without an image",
            cri -> cri.images().imageStatus(ImageStatusRequest.getDefaultInstance()), Status.Code.INVALID_ARGUMENT));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void answersTheRightStatus(Case c) {
    assertThatThrownBy(() -> c.call().accept(crigate.cri()))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).as(e.getStatus().toString()).isEqualTo(c.expected()));
  }

  @Test
  void rejectsBytesThatAreNotAMessage() {
    MethodDescriptor<byte[], byte[]> runPodSandbox = RuntimeServiceGrpc.getRunPodSandboxMethod().toBuilder(RAW, RAW).build();
    // 0xff 0xff...: a field tag with wire type 7, which protobuf does not define.
    byte[] garbage = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff, 0x0f};

    assertThatThrownBy(() -> ClientCalls.blockingUnaryCall(crigate.cri().channel(), runPodSandbox,
        CallOptions.DEFAULT.withDeadlineAfter(10, TimeUnit.SECONDS), garbage))
        .isInstanceOfSatisfying(StatusRuntimeException.class,
            e -> assertThat(e.getStatus().getCode()).isNotIn(Status.Code.OK, Status.Code.UNAVAILABLE, Status.Code.DEADLINE_EXCEEDED));
  }

  @AfterEach
  void crigateStillServes() {
    assertThat(crigate.process().isAlive()).isTrue();
    assertThat(crigate.cri().runtime().version(VersionRequest.getDefaultInstance()).getVersion()).isNotEmpty();
  }

  private static final MethodDescriptor.Marshaller<byte[]> RAW = new MethodDescriptor.Marshaller<>() {
    @Override
    public InputStream stream(byte[] value) {
      return new ByteArrayInputStream(value);
    }

    @Override
    public byte[] parse(InputStream stream) {
      try {
        return stream.readAllBytes();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  };
}

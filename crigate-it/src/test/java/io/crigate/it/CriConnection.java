package io.crigate.it;

import io.crigate.api.cri.v1.*;
import io.grpc.Channel;
import io.grpc.ManagedChannel;
import io.grpc.netty.NettyChannelBuilder;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollDomainSocketChannel;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.channel.unix.DomainSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A blocking CRI client over a unix socket, as a kubelet holds one: to crigate or to a containerd directly. */
final class CriConnection implements AutoCloseable {

  /** Long enough for a pull from the local registry; short enough that a hang fails the test. */
  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(60);

  private final String endpoint;
  private final EventLoopGroup eventLoop;
  private final ManagedChannel channel;

  private CriConnection(String endpoint, EventLoopGroup eventLoop, ManagedChannel channel) {
    this.endpoint = endpoint;
    this.eventLoop = eventLoop;
    this.channel = channel;
  }

  /** Connects lazily to {@code unix:///path}. */
  static CriConnection open(String endpoint) {
    String path = endpoint.replaceFirst("^unix://", "");
    EventLoopGroup eventLoop = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
    ManagedChannel channel = NettyChannelBuilder.forAddress(new DomainSocketAddress(path))
        .eventLoopGroup(eventLoop)
        .channelType(EpollDomainSocketChannel.class)
        .directExecutor()
        .usePlaintext()
        .overrideAuthority("localhost")
        .maxInboundMessageSize(16 * 1024 * 1024)
        .build();
    return new CriConnection(endpoint, eventLoop, channel);
  }

  String endpoint() {
    return endpoint;
  }

  /** For calls the generated stubs cannot make, such as sending bytes that are not a valid message. */
  Channel channel() {
    return channel;
  }

  RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime() {
    return runtime(DEFAULT_DEADLINE);
  }

  RuntimeServiceGrpc.RuntimeServiceBlockingStub runtime(Duration deadline) {
    return RuntimeServiceGrpc.newBlockingStub(channel).withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
  }

  ImageServiceGrpc.ImageServiceBlockingStub images() {
    return ImageServiceGrpc.newBlockingStub(channel).withDeadlineAfter(DEFAULT_DEADLINE.toMillis(), TimeUnit.MILLISECONDS);
  }

  PodSandboxState podState(String podId) {
    return runtime().podSandboxStatus(PodSandboxStatusRequest.newBuilder().setPodSandboxId(podId).build())
        .getStatus().getState();
  }

  ContainerState containerState(String containerId) {
    return runtime().containerStatus(ContainerStatusRequest.newBuilder().setContainerId(containerId).build())
        .getStatus().getState();
  }

  /** The uids of every pod this runtime lists: ids differ between crigate and a runtime, uids do not. */
  List<String> podUids() {
    return runtime().listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList().stream()
        .map(pod -> pod.getMetadata().getUid())
        .toList();
  }

  /** Stops and removes a pod, as the kubelet does when it deletes one. */
  void removePod(String podId) {
    runtime().stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
    runtime().removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(podId).build());
  }

  @Override
  public void close() {
    channel.shutdownNow();
    try {
      channel.awaitTermination(5, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    eventLoop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
  }
}

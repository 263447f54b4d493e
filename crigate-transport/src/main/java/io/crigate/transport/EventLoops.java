package io.crigate.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.util.concurrent.TimeUnit;

/**
 * Epoll event loops. crigate runs its CRI server and every backend channel on one such group, so a
 * forwarded call is read, routed, sent on, answered and replied to on the same thread.
 */
public final class EventLoops {

  private EventLoops() {}

  /** Daemon threads named {@code name-N}, so a forgotten close never pins the JVM. */
  public static EventLoopGroup epoll(int threads, String name) {
    return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), EpollIoHandler.newFactory());
  }

  /** Shuts {@code group} down without a quiet period and waits up to {@code timeoutSeconds}. */
  public static void shutdown(EventLoopGroup group, long timeoutSeconds) {
    group.shutdownGracefully(0, timeoutSeconds, TimeUnit.SECONDS).syncUninterruptibly();
  }
}

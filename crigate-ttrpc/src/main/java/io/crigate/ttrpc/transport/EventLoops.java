package io.crigate.ttrpc.transport;

import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.epoll.EpollIoHandler;
import io.netty.util.concurrent.DefaultThreadFactory;

/** The epoll event loop all ttrpc connections of this JVM share unless given their own. */
public final class EventLoops {

  private EventLoops() {
  }

  private static final class Shared {
    // One thread: ttrpc frames are small and handlers run elsewhere, so more threads only add
    // wake-ups on a 2-core node.
    static final EventLoopGroup GROUP = new MultiThreadIoEventLoopGroup(1,
        new DefaultThreadFactory("ttrpc-io", true), EpollIoHandler.newFactory());
  }

  public static EventLoopGroup shared() {
    return Shared.GROUP;
  }
}

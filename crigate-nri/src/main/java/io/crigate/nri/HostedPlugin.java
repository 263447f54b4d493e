package io.crigate.nri;

import com.google.protobuf.MessageLite;
import com.google.protobuf.Parser;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.ttrpc.CallOptions;
import io.crigate.ttrpc.TtrpcClient;
import io.netty.channel.Channel;
import java.time.Duration;

/** An external plugin connected to crigate's NRI socket, once it has registered and been configured. */
final class HostedPlugin implements Comparable<HostedPlugin> {

  private final Channel channel;
  private final TtrpcClient client;
  private volatile String name = "";
  private volatile String index = "";
  private volatile int events;

  HostedPlugin(Channel channel, TtrpcClient client) {
    this.channel = channel;
    this.client = client;
  }

  void registered(String name, String index) {
    this.name = name;
    this.index = index;
  }

  /** An empty mask subscribes to every event, as NRI's runtime reads it. */
  void configured(int events) {
    this.events = events == 0 ? -1 : events;
  }

  /** NRI's display name, {@code idx-name}. */
  String id() {
    return index + "-" + name;
  }

  boolean subscribes(Event event) {
    return Events.subscribed(events, event);
  }

  <R> R call(String method, MessageLite request, Parser<R> parser, Duration timeout) {
    return client.call(NriServices.PLUGIN, method, request, parser, CallOptions.timeout(timeout));
  }

  void drop(String reason) {
    channel.close();
  }

  Channel channel() {
    return channel;
  }

  /** Plugins run in index order; the name breaks ties so the order is total. */
  @Override
  public int compareTo(HostedPlugin o) {
    int byIndex = index.compareTo(o.index);
    return byIndex != 0 ? byIndex : name.compareTo(o.name);
  }
}

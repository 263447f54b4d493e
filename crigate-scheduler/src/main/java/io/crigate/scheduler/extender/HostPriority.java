package io.crigate.scheduler.extender;

/** One node's extender score, {@code 0..MaxExtenderPriority}. */
record HostPriority(String host, long score) {}

package io.crigate.scheduler.extender;

import java.util.List;

/**
 * The answer to one prioritize call: each candidate's score, {@code 0..MaxExtenderPriority}, in the
 * candidates' order. Two lists rather than an object per host: an answer has thousands of hosts.
 */
record Priorities(List<NodeTable.Entry> hosts, long[] scores) {

  Priorities {
    if (hosts.size() != scores.length) {
      throw new IllegalArgumentException("%d hosts but %d scores".formatted(hosts.size(), scores.length));
    }
  }
}

package io.crigate.policy.kube;

import java.util.List;
import java.util.Optional;

/**
 * The ConfigMaps a node reads its policy configuration from, most specific first:
 * {@code crigate-config.node.<node>}, {@code crigate-config.group.<group>} (when the node has a
 * group), {@code crigate-config.default}. The first one that exists is used whole.
 */
record ConfigMapNames(String node, Optional<String> group) {

  static final String PREFIX = "crigate-config.";
  static final String DEFAULT = PREFIX + "default";

  List<String> inPrecedence() {
    return group.map(g -> List.of(PREFIX + "node." + node, PREFIX + "group." + g, DEFAULT))
        .orElseGet(() -> List.of(PREFIX + "node." + node, DEFAULT));
  }
}

package io.crigate.policy.kube;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The ConfigMaps a node reads its policy configuration from, most specific first: the node's own,
 * its group's (when the node has a group), the default. At each level crigate's
 * {@code crigate-config.*} comes before CRI Resource Manager's {@code cri-resmgr-config.*}, so a
 * cluster moving over can keep its CRI Resource Manager ConfigMaps and replace them one by one.
 * The first one that exists is used whole.
 */
record ConfigMapNames(String node, Optional<String> group) {

  static final String PREFIX = "crigate-config.";
  static final String CRI_RM_PREFIX = "cri-resmgr-config.";
  static final String DEFAULT = PREFIX + "default";
  /** The data key holding the policy section as YAML, in crigate's ConfigMaps and CRI Resource Manager's. */
  static final String DATA_KEY = "policy";
  /** The node label CRI Resource Manager reads a node's configuration group from. */
  static final String CRI_RM_GROUP_LABEL = "cri-resource-manager.intel.com/group";

  List<String> inPrecedence() {
    List<String> scopes = new ArrayList<>();
    scopes.add("node." + node);
    group.ifPresent(g -> scopes.add("group." + g));
    scopes.add("default");
    List<String> names = new ArrayList<>();
    for (String scope : scopes) {
      names.add(PREFIX + scope);
      names.add(CRI_RM_PREFIX + scope);
    }
    return names;
  }

  static boolean isCriRm(String name) {
    return name.startsWith(CRI_RM_PREFIX);
  }
}

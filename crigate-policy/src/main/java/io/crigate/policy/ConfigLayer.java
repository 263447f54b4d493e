package io.crigate.policy;

/** A live source of policy configuration; later constants take precedence over earlier ones. */
public enum ConfigLayer {
  /** The ConfigMap chosen for this node: crigate-config.node.&lt;node&gt; &gt; .group.&lt;group&gt; &gt; .default. */
  CLUSTER,
  /** The node's own file ({@code policy.configFile}): an administrator's override on that node. */
  FILE
}

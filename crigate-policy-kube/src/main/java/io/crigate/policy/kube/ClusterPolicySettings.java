package io.crigate.policy.kube;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.SettingsBinder;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * The {@code policy.kubernetes} section: where this node's policy ConfigMaps live.
 *
 * <pre>
 * policy:
 *   kubernetes:
 *     namespace: kube-system              # default
 *     node: node-1                        # default: the NODE_NAME environment variable
 *     groupLabel: crigate.io/config-group # default; the node label naming its group
 *     startWait: 10s                      # default: serve 10s, nri-plugin 2s
 * </pre>
 *
 * @param namespace where the {@code crigate-config.*} ConfigMaps are
 * @param node this node's name: its own ConfigMap, its group label, and where rejections are posted
 * @param groupLabel the node label whose value names the node's group
 * @param startWait how long a start with no remembered ConfigMap waits for the API server's first
 *     answer before it serves the file's policy; empty: the command's own default
 */
public record ClusterPolicySettings(String namespace, String node, String groupLabel, Optional<Duration> startWait) {

  /** Settings that leave the wait to the command. */
  public ClusterPolicySettings(String namespace, String node, String groupLabel) {
    this(namespace, node, groupLabel, Optional.empty());
  }

  static final String SECTION = "kubernetes";

  /** The section as written; an absent key is null. */
  record Written(String namespace, String node, String groupLabel, Duration startWait) {}

  /**
   * Empty when the section is absent: configuration then comes from files only. A key crigate does
   * not read is refused by name, so a misspelt {@code namspace} does not quietly follow the default.
   */
  public static Optional<ClusterPolicySettings> read(JsonNode policySection, String nodeNameFromEnvironment) {
    JsonNode node = policySection.path(SECTION);
    if (node.isMissingNode()) {
      return Optional.empty();
    }
    if (!node.isObject()) {
      throw new CrigateException.InvalidArgument("policy.kubernetes must be a mapping (namespace, node, groupLabel, startWait)");
    }
    Written written = SettingsBinder.bind(node, Written.class, "policy.kubernetes");
    String nodeName = written.node() != null ? written.node() : nodeNameFromEnvironment == null ? "" : nodeNameFromEnvironment;
    if (nodeName.isEmpty()) {
      throw new CrigateException.InvalidArgument("policy.kubernetes.node: no node name (set it, or the NODE_NAME environment variable)");
    }
    return Optional.of(new ClusterPolicySettings(Objects.requireNonNullElse(written.namespace(), "kube-system"), nodeName,
        Objects.requireNonNullElse(written.groupLabel(), "crigate.io/config-group"), Optional.ofNullable(written.startWait())));
  }
}

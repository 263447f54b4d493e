package io.crigate.core.config;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The command-line flags that configure a gateway, as given; {@code null} means "not given", so the
 * configuration file (or the default) applies. Flags become a tree of the same shape as the file,
 * which keeps one code path for checking both.
 */
public record ConfigFlags(
    String config,
    String socket,
    String stateDir,
    String remoteRuntimeEndpoints,
    String dump,
    String dumpFile,
    String dumpFormat,
    String dumpRedactEnv,
    String logLevel) {

  public static ConfigFlags none() {
    return new ConfigFlags(null, null, null, null, null, null, null, null, null);
  }

  ObjectNode toTree() {
    ObjectNode root = JsonNodeFactory.instance.objectNode();
    putIfGiven(root, ConfigKeys.SOCKET, socket);
    putIfGiven(root, ConfigKeys.STATE_DIR, stateDir);
    putIfGiven(root, ConfigKeys.LOG_LEVEL, logLevel);
    if (remoteRuntimeEndpoints != null) {
      root.set(ConfigKeys.BACKENDS, RemoteRuntimeEndpoints.parse(remoteRuntimeEndpoints));
    }
    ObjectNode dumpNode = JsonNodeFactory.instance.objectNode();
    putIfGiven(dumpNode, ConfigKeys.DUMP_RULES, dump);
    putIfGiven(dumpNode, ConfigKeys.DUMP_FILE, dumpFile);
    putIfGiven(dumpNode, ConfigKeys.DUMP_FORMAT, dumpFormat);
    putIfGiven(dumpNode, ConfigKeys.DUMP_REDACT_ENV, dumpRedactEnv);
    if (!dumpNode.isEmpty()) {
      root.set(ConfigKeys.DUMP, dumpNode);
    }
    return root;
  }

  private static void putIfGiven(ObjectNode node, String key, String value) {
    if (value != null) {
      node.put(key, value);
    }
  }
}

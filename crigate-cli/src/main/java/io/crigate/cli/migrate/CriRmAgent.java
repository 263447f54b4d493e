package io.crigate.cli.migrate;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.util.List;

/**
 * CRI Resource Manager's node agent, {@code NODE_NAME=<node> cri-resmgr-agent -kubeconfig <path>}.
 * crigate has no agent: {@code crigate serve} watches the {@code cri-resmgr-config.*} ConfigMaps
 * itself once {@code policy.kubernetes} is set, so the agent's command line becomes that section.
 */
final class CriRmAgent {

  static final String PROGRAM = "cri-resmgr-agent";

  private CriRmAgent() {}

  static void translate(List<String> args, Translation t) {
    String node = t.environment.get("NODE_NAME");
    t.map(PROGRAM, "policy.kubernetes", JsonNodeFactory.instance.objectNode());
    if (node != null && !node.isBlank()) {
      t.map("NODE_NAME", "policy.kubernetes.node", node);
    }
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      String name = arg.replaceFirst("^--?", "").replaceFirst("=.*", "");
      if (name.equals("kubeconfig")) {
        String path = arg.contains("=") ? arg.substring(arg.indexOf('=') + 1) : i + 1 < args.size() ? args.get(++i) : "";
        t.findings.ignored("-kubeconfig " + path, ("crigate reads the kubeconfig named by the KUBECONFIG variable "
            + "(else ~/.kube/config, else the pod's service account): run crigate serve with KUBECONFIG=%s").formatted(path));
      } else {
        t.findings.refused(arg, "not a cri-resmgr-agent option crigate has an equivalent for");
      }
    }
  }
}

package io.crigate.interlink.plugin;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.PodSandboxConfig;
import java.util.List;

/** A pod as crigate backends take it: one sandbox, then its init containers and containers in order. */
record PodPlan(PodSandboxConfig sandbox, List<Step> steps) {

  record Step(String name, boolean init, ContainerConfig config) {}
}

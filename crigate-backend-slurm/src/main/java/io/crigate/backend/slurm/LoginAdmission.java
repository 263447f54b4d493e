package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.spi.CrigateException;
import java.util.Optional;

/**
 * Decides whether a container may bring its own cluster login (multi-cri's CLUSTER_* variables):
 * only when the backend's settings name the hosts that are allowed, and only to one of them.
 */
final class LoginAdmission {

  private final String backend;
  private final Optional<KnownLoginHosts> allowedHosts;
  private final Clusters clusters;

  LoginAdmission(String backend, Optional<KnownLoginHosts> allowedHosts, Clusters clusters) {
    this.backend = backend;
    this.allowedHosts = allowedHosts;
    this.clusters = clusters;
  }

  /**
   * The container's own cluster login, checked and connected (a wrong password fails here with
   * PERMISSION_DENIED), or empty for the configured cluster.
   */
  Optional<ClusterLogin> admit(ContainerConfig config, String containerId) {
    String container = config.getMetadata().getName();
    Optional<ClusterLogin> login = ClusterLogin.fromEnv(config, container);
    login.ifPresent(l -> {
      KnownLoginHosts hosts = allowedHosts.orElseThrow(() -> new CrigateException.InvalidArgument(("container %s "
          + "sets %s, but slurm backend %s does not accept per-container cluster logins: set "
          + "containerLogins.knownHostsFile in its settings, or remove the variables")
          .formatted(container, ClusterLogin.VARIABLES, backend)));
      hosts.check(l, container);
      clusters.admit(l, containerId);
    });
    return login;
  }

  /** The stored config keeps the login's user and host but never its password (the vault holds that). */
  static ContainerConfig withoutPassword(ContainerConfig config) {
    if (config.getEnvsList().stream().noneMatch(kv -> kv.getKey().equals(ClusterLogin.PASSWORD))) {
      return config;
    }
    ContainerConfig.Builder stored = config.toBuilder().clearEnvs();
    config.getEnvsList().stream().filter(kv -> !kv.getKey().equals(ClusterLogin.PASSWORD)).forEach(stored::addEnvs);
    return stored.build();
  }
}

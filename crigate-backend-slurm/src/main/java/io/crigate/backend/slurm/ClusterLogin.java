package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A cluster login a container brings in its environment, as multi-cri reads it: CLUSTER_HOST,
 * CLUSTER_PORT (default 22), CLUSTER_USERNAME and CLUSTER_PASSWORD. Jobs of such a container are
 * submitted, polled and cancelled over SSH as that user.
 *
 * <p>The password leaves this record only into the SSH handshake and, sealed by {@link LoginVault},
 * into the durable store; {@link #toString()} never shows it.
 */
record ClusterLogin(String host, int port, String user, String password) {

  static final List<String> VARIABLES = List.of("CLUSTER_HOST", "CLUSTER_PORT", "CLUSTER_USERNAME", "CLUSTER_PASSWORD");
  static final String PASSWORD = "CLUSTER_PASSWORD";

  /** Host names, IPv4 and bracket-free IPv6 literals; nothing a shell or known_hosts would read twice. */
  private static final Pattern HOST = Pattern.compile("[A-Za-z0-9][A-Za-z0-9.:-]{0,252}");
  private static final Pattern USER = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}");

  /**
   * The login the variables describe, or empty when the container sets none of them.
   *
   * @throws CrigateException.InvalidArgument naming the variable at fault (never a value: one is a password)
   */
  static Optional<ClusterLogin> fromEnv(ContainerConfig config, String container) {
    Map<String, String> env = new HashMap<>();
    config.getEnvsList().stream().filter(kv -> VARIABLES.contains(kv.getKey()))
        .forEach(kv -> env.put(kv.getKey(), kv.getValue().toStringUtf8()));
    if (VARIABLES.stream().noneMatch(env::containsKey)) {
      return Optional.empty();
    }
    List<String> missing = List.of("CLUSTER_HOST", "CLUSTER_USERNAME", PASSWORD).stream()
        .filter(name -> env.getOrDefault(name, "").isEmpty()).toList();
    if (!missing.isEmpty()) {
      throw invalid(container, "cluster login variables are set but %s %s empty or missing"
          .formatted(missing, missing.size() == 1 ? "is" : "are"));
    }
    String host = env.get("CLUSTER_HOST").strip();
    if (!HOST.matcher(host).matches()) {
      throw invalid(container, "CLUSTER_HOST is not a host name or address");
    }
    String user = env.get("CLUSTER_USERNAME").strip();
    if (!USER.matcher(user).matches()) {
      throw invalid(container, "CLUSTER_USERNAME is not a user name");
    }
    return Optional.of(new ClusterLogin(host, port(env.get("CLUSTER_PORT"), container), user, env.get(PASSWORD)));
  }

  private static int port(String value, String container) {
    if (value == null || value.isBlank()) {
      return 22;
    }
    return PortNumber.parse(value, 1).orElseThrow(() -> invalid(container, "CLUSTER_PORT is not a port number (1-65535)"));
  }

  private static CrigateException.InvalidArgument invalid(String container, String problem) {
    return new CrigateException.InvalidArgument("container %s: %s".formatted(container, problem));
  }

  /** Identifies the login's cluster connection and records: one per user, host and port. */
  String key() {
    return user + "@" + host + ":" + port;
  }

  SlurmSettings.Ssh ssh(String knownHostsFile) {
    return new SlurmSettings.Ssh(host, port, user, null, password, knownHostsFile, null);
  }

  @Override
  public String toString() {
    return "ClusterLogin[" + key() + "]";
  }
}

package io.crigate.backend.slurm;

import com.fasterxml.jackson.annotation.JsonAlias;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.MillisOrDuration;
import io.crigate.spi.config.SettingsBinder;
import io.crigate.spi.config.ZeroOrDuration;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * A slurm backend's configuration, read from its section of the crigate config.
 *
 * @param workDir the cluster's shared directory that holds one directory per pod; it must be
 *     visible at the same path to crigate and to the compute nodes (multi-cri's CRI_SLURM_MOUNT_PATH)
 * @param transport how Slurm is reached: {@code local}, {@code ssh} or {@code rest}
 * @param runner how a container image becomes a process: none, apptainer, singularity, enroot, podman
 * @param pollInterval how often one squeue call refreshes the status of every job (default 1s); the
 *     older {@code pollIntervalMillis} key is read as an alias, where a bare number means milliseconds
 * @param flavors named sets of sbatch flags that pods select with an annotation
 * @param defaultFlavor the flavor used when a pod names none (may be null)
 * @param containerLogins whether and how containers may bring their own cluster login (null: they may not)
 * @param portForwardStandby how long a relay step started ahead for a forwarded port waits for its
 *     connection (default 30s; 0 starts none ahead, so each connection launches its own step)
 */
record SlurmSettings(
    String workDir,
    String transport,
    Ssh ssh,
    Rest rest,
    String runner,
    @JsonAlias("pollIntervalMillis") @JsonDeserialize(using = MillisOrDuration.class) Duration pollInterval,
    Map<String, Flavor> flavors,
    String defaultFlavor,
    ContainerLogins containerLogins,
    @JsonDeserialize(using = ZeroOrDuration.class) Duration portForwardStandby) {

  SlurmSettings {
    pollInterval = pollInterval == null ? Duration.ofSeconds(1) : pollInterval;
    portForwardStandby = portForwardStandby == null ? Duration.ofSeconds(30) : portForwardStandby;
  }

  /**
   * Where sshd runs and how to log in. Password and key are secrets: never logged.
   * {@code maxChannelsPerSession} must not exceed the server's {@code MaxSessions} (OpenSSH: 10).
   */
  record Ssh(String host, Integer port, String user, String privateKeyFile, String password, String knownHostsFile,
      Integer maxChannelsPerSession) {
    /** OpenSSH's default MaxSessions: commands one connection may run at once. */
    static final int DEFAULT_CHANNELS_PER_SESSION = 10;

    int portOrDefault() {
      return port == null ? 22 : port;
    }

    int channelsPerSession() {
      return maxChannelsPerSession == null ? DEFAULT_CHANNELS_PER_SESSION : maxChannelsPerSession;
    }

    Path privateKey() {
      return privateKeyFile == null ? null : Path.of(privateKeyFile);
    }

    Path knownHosts() {
      return Path.of(knownHostsFile);
    }

    @Override
    public String toString() {
      return "Ssh[%s@%s:%d]".formatted(user, host, portOrDefault());
    }
  }

  /**
   * slurmrestd with JWT auth. {@code tokenFile} is re-read on every 401 so tokens can rotate.
   * {@code allowInsecureHttp} must be set to send the token over plain {@code http://} to a host
   * other than loopback.
   */
  record Rest(String url, String apiVersion, String user, String token, String tokenFile, Boolean allowInsecureHttp) {
    String version() {
      return apiVersion == null ? "v0.0.38" : apiVersion;
    }

    @Override
    public String toString() {
      return "Rest[%s as %s, api %s]".formatted(url, user, version());
    }
  }

  /**
   * Opt-in for multi-cri's per-container logins (CLUSTER_HOST, _PORT, _USERNAME, _PASSWORD). Only
   * hosts with a key in {@code knownHostsFile} are logged in to, so a pod cannot make crigate open
   * SSH connections to arbitrary machines.
   */
  record ContainerLogins(String knownHostsFile) {
    Path knownHosts() {
      return Path.of(knownHostsFile);
    }
  }

  /** A named set of sbatch flags, e.g. {@code ["--partition=gpu", "--gres=gpu:1"]}. */
  record Flavor(List<String> flags) {}

  static SlurmSettings parse(String backend, JsonNode node) {
    SlurmSettings raw = SettingsBinder.bind(node, SlurmSettings.class, "backends." + backend);
    if (raw.workDir == null || !raw.workDir.startsWith("/")) {
      throw invalid(backend, "setting 'workDir' is required and must be an absolute path on the shared file system");
    }
    raw.validate(backend);
    return raw;
  }

  private void validate(String backend) {
    switch (transportKind()) {
      case "local" -> {}
      case "ssh" -> {
        if (ssh == null || ssh.host() == null || ssh.user() == null || ssh.knownHostsFile() == null) {
          throw invalid(backend, "transport ssh needs ssh.host, ssh.user and ssh.knownHostsFile");
        }
        if (ssh.privateKeyFile() == null && ssh.password() == null) {
          throw invalid(backend, "transport ssh needs ssh.privateKeyFile or ssh.password");
        }
        if (ssh.maxChannelsPerSession() != null && ssh.maxChannelsPerSession() < 1) {
          throw invalid(backend, "ssh.maxChannelsPerSession must be at least 1");
        }
        if (!Files.isReadable(ssh.knownHosts())) {
          throw invalid(backend, "ssh.knownHostsFile %s is not readable".formatted(ssh.knownHostsFile()));
        }
      }
      case "rest" -> {
        if (rest == null || rest.url() == null || rest.user() == null || (rest.token() == null && rest.tokenFile() == null)) {
          throw invalid(backend, "transport rest needs rest.url, rest.user and rest.token or rest.tokenFile");
        }
        checkRestUrl(backend, rest);
      }
      default -> throw invalid(backend, "transport '%s' is not one of local, ssh, rest".formatted(transport));
    }
    if (containerLogins != null && (containerLogins.knownHostsFile() == null
        || !Files.isReadable(containerLogins.knownHosts()))) {
      throw invalid(backend, "containerLogins.knownHostsFile must name a readable known_hosts file");
    }
    ImageRunner.parse(backend, runner);
    if (defaultFlavor != null && (flavors == null || !flavors.containsKey(defaultFlavor))) {
      throw invalid(backend, "defaultFlavor '%s' is not among the configured flavors".formatted(defaultFlavor));
    }
  }

  /** The JWT travels in a header: in clear over http://, which only loopback keeps on this machine. */
  private static void checkRestUrl(String backend, Rest rest) {
    URI url;
    try {
      url = new URI(rest.url());
    } catch (URISyntaxException e) {
      throw invalid(backend, "rest.url '%s' is not a URL: %s".formatted(rest.url(), e.getReason()));
    }
    String scheme = String.valueOf(url.getScheme()).toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https") || url.getHost() == null) {
      throw invalid(backend, "rest.url '%s' must be http(s)://host:port".formatted(rest.url()));
    }
    if (scheme.equals("http") && !isLoopback(url.getHost()) && !Boolean.TRUE.equals(rest.allowInsecureHttp())) {
      throw invalid(backend, ("rest.url %s would send the slurmrestd token in clear to a host other than loopback: "
          + "use https://, or set rest.allowInsecureHttp: true if the network is trusted").formatted(rest.url()));
    }
  }

  /** Only literal loopback addresses and "localhost" count; any other name could be pointed elsewhere. */
  private static boolean isLoopback(String host) {
    if (host.equalsIgnoreCase("localhost")) {
      return true;
    }
    boolean literal = host.startsWith("[") || host.chars().allMatch(c -> Character.isDigit(c) || c == '.');
    if (!literal) {
      return false;
    }
    try {
      return InetAddress.getByName(host.replace("[", "").replace("]", "")).isLoopbackAddress();
    } catch (UnknownHostException e) {
      return false;
    }
  }

  String transportKind() {
    return transport == null ? "local" : transport;
  }

  /**
   * The cluster user this backend's jobs run as, where it is named: the SSH login or slurmrestd's
   * user. Empty for local commands, whose jobs run as crigate itself.
   */
  Optional<String> jobUser() {
    return switch (transportKind()) {
      case "ssh" -> Optional.of(ssh.user());
      case "rest" -> Optional.of(rest.user());
      default -> Optional.empty();
    };
  }

  Path workDirPath() {
    return Path.of(workDir);
  }

  Map<String, Flavor> flavorsOrEmpty() {
    return flavors == null ? Map.of() : flavors;
  }

  static CrigateException.InvalidArgument invalid(String backend, String problem) {
    return new CrigateException.InvalidArgument("slurm backend %s: %s".formatted(backend, problem));
  }

  /** Never prints secrets, so a settings object can safely reach a log line or an exception. */
  @Override
  public String toString() {
    return "SlurmSettings[workDir=%s, transport=%s, runner=%s]".formatted(workDir, transportKind(), runner);
  }
}

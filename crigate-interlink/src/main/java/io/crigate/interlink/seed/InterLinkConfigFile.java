package io.crigate.interlink.seed;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.spi.CrigateException;
import io.crigate.spi.config.PortNumber;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code InterLinkConfig.yaml} of interLink's first releases (Cloud-PG/interLink), which its
 * virtual kubelet, API server and sidecars all read, with the environment variables that override
 * its keys, applied as interLink applied them. Each crigate command takes the keys of the part it
 * replaces ({@link #warnings}); keys that have lost their meaning there are named once, and a key
 * crigate cannot honour is refused naming what to use instead.
 *
 * @param path where the file was read from
 * @param sidecarService {@code slurm} or {@code docker}, or {@code null} when {@code SIDECARPORT}
 *     named a custom sidecar (interLink's "Custom Service")
 */
public record InterLinkConfigFile(Path path, String interlinkUrl, String interlinkPort, String sidecarUrl,
    String sidecarPort, String sidecarService, String sbatchPath, String scancelPath, String vkTokenFile,
    String commandPrefix, boolean getConfigMapsOrSecretsSet, boolean tsocks, String tsocksPath, String tsocksConfig,
    String tsocksLoginNode) {

  /** Where interLink's code looked when {@code INTERLINKCONFIGPATH} was not set. */
  public static final Path DEFAULT_PATH = Path.of("/etc/interlink/InterLinkConfig.yaml");
  /** The default interLink's README gives for {@code INTERLINKCONFIGPATH}, relative to the working directory. */
  public static final Path README_DEFAULT_PATH = Path.of("kustomizations", "InterLinkConfig.yaml");
  /** Tried in this order when {@code INTERLINKCONFIGPATH} is not set; the first that exists is read. */
  public static final List<Path> DEFAULT_PATHS = List.of(DEFAULT_PATH, README_DEFAULT_PATH);
  /** The key interLink reads for its API port; its README spells it {@code InterLinkPort}, which is taken too. */
  static final String PORT_KEY = "InterlinkPort";
  static final String README_PORT_KEY = "InterLinkPort";

  private static final Logger LOG = LoggerFactory.getLogger(InterLinkConfigFile.class);
  public static final String PATH_VARIABLE = "INTERLINKCONFIGPATH";

  /** The keys interLink's config struct reads (its yaml tags, and the untagged {@code sidecarport}). */
  static final Set<String> KEYS = Set.of("VKTokenFile", "InterlinkURL", "SidecarURL", "SbatchPath", "ScancelPath",
      "InterlinkPort", "SidecarPort", "sidecarport", "SidecarService", "CommandPrefix", "GetConfigMapsOrSecrets",
      "Tsocks", "TsocksPath", "TsocksConfig", "TsocksLoginNode");

  private static final Map<String, String> DEFAULT_SIDECAR_PORTS = Map.of("docker", "4000", "slurm", "4001");

  /** The part of interLink a crigate command stands in for. */
  public enum Role { VIRTUAL_NODE, API, PLUGIN }

  /**
   * The file {@code INTERLINKCONFIGPATH} names, else interLink's default path if it exists; empty
   * when neither applies.
   *
   * @throws CrigateException.InvalidArgument when the named file is missing or unreadable, or a
   *     key or variable has a value interLink would also have refused
   */
  public static Optional<InterLinkConfigFile> fromEnvironment(Map<String, String> env) {
    return fromEnvironment(env, DEFAULT_PATHS);
  }

  /** As {@link #fromEnvironment(Map)}, trying {@code defaults} in order when the variable is not set. */
  static Optional<InterLinkConfigFile> fromEnvironment(Map<String, String> env, List<Path> defaults) {
    String named = env.get(PATH_VARIABLE);
    if (named == null || named.isEmpty()) {
      Optional<Path> found = defaults.stream().filter(Files::isRegularFile).findFirst();
      if (found.isEmpty()) {
        LOG.info("interLink config: {} not set and none of {} exists; reading none", PATH_VARIABLE, defaults);
        return Optional.empty();
      }
      LOG.info("interLink config: read {} ({} not set; tried {} in this order)", found.get(), PATH_VARIABLE, defaults);
      return Optional.of(load(found.get(), env));
    }
    Path path = Path.of(named);
    if (!Files.isRegularFile(path)) {
      throw invalid("%s names %s, which does not exist".formatted(PATH_VARIABLE, named));
    }
    return Optional.of(load(path, env));
  }

  static InterLinkConfigFile load(Path path, Map<String, String> env) {
    JsonNode yaml;
    try {
      yaml = new ObjectMapper(new YAMLFactory()).readTree(path.toFile());
    } catch (IOException e) {
      throw invalid("%s: not readable as YAML: %s".formatted(path, e.getMessage()));
    }
    if (yaml == null || yaml.isMissingNode() || yaml.isNull()) {
      yaml = new ObjectMapper().createObjectNode();
    }
    if (!yaml.isObject()) {
      throw invalid("%s: expected interLink's keys (InterlinkURL, SidecarURL, ...), found %s".formatted(path, yaml.getNodeType()));
    }
    if (yaml.has(README_PORT_KEY)) {
      if (yaml.has(PORT_KEY)) {
        throw invalid("%s: both %s and %s are given; they are one key (the API port), keep one"
            .formatted(path, PORT_KEY, README_PORT_KEY));
      }
      ObjectNode keys = (ObjectNode) yaml; // parsed just above: renaming in place touches nothing else
      keys.set(PORT_KEY, keys.remove(README_PORT_KEY));
    }
    for (String key : (Iterable<String>) yaml::fieldNames) {
      if (!KEYS.contains(key)) {
        throw invalid("%s: unknown key '%s' (interLink reads %s)".formatted(path, key, KEYS.stream().sorted().toList()));
      }
    }
    Values file = new Values(yaml, env);
    String service = file.text("SidecarService", "SIDECARSERVICE");
    String port;
    if (!env.getOrDefault("SIDECARPORT", "").isEmpty() && env.getOrDefault("SIDECARSERVICE", "").isEmpty()) {
      // interLink: a custom port without SIDECARSERVICE names a custom sidecar, whatever the file says
      port = env.get("SIDECARPORT");
      service = null;
    } else {
      if (!DEFAULT_SIDECAR_PORTS.containsKey(service)) {
        throw invalid("%s: SidecarService '%s' (or SIDECARSERVICE) must be docker or slurm".formatted(path, service));
      }
      String filePort = yaml.hasNonNull("SidecarPort") ? yaml.get("SidecarPort").asText() : yaml.path("sidecarport").asText("");
      port = filePort.isEmpty() ? DEFAULT_SIDECAR_PORTS.get(service) : filePort;
    }
    return new InterLinkConfigFile(path, file.text("InterlinkURL", "INTERLINKURL"), file.text("InterlinkPort", "INTERLINKPORT"),
        file.text("SidecarURL", "SIDECARURL"), port, service, file.text("SbatchPath", "SBATCHPATH"),
        file.text("ScancelPath", "SCANCELPATH"), file.text("VKTokenFile", "VKTOKENFILE"), file.text("CommandPrefix", null),
        yaml.has("GetConfigMapsOrSecrets"), file.flag("Tsocks", "TSOCKS"), file.text("TsocksPath", "TSOCKSPATH"),
        file.text("TsocksConfig", null), file.text("TsocksLoginNode", null));
  }

  /** {@code InterlinkURL:InterlinkPort}, where the virtual node reaches the API. */
  public String apiUrl() {
    return url("InterlinkURL", interlinkUrl, "InterlinkPort", interlinkPort);
  }

  /** Every address on {@code InterlinkPort}, where interLink's API server listened. */
  public String apiListen() {
    return "0.0.0.0:" + port("InterlinkPort", interlinkPort);
  }

  /** {@code SidecarURL:SidecarPort}, where the API reaches the plugin. */
  public String pluginUrl() {
    return url("SidecarURL", sidecarUrl, "SidecarPort", sidecarPort);
  }

  /** Every address on the sidecar's port, where interLink's sidecars listened. */
  public String pluginListen() {
    return "0.0.0.0:" + port("SidecarPort", sidecarPort);
  }

  /** The crigate backend type that plays the sidecar's part: slurm for Slurm, cri for Docker; empty for a custom one. */
  public Optional<String> backendType() {
    return Optional.ofNullable(sidecarService).map(s -> s.equals("docker") ? "cri" : s);
  }

  /** The VK's bearer token file; interLink stopped when {@code VKTOKENFILE} named a missing one. */
  public Path tokenFile() {
    if (vkTokenFile.isEmpty()) {
      throw invalid("%s: VKTokenFile is empty; the virtual node sends the token in that file".formatted(path));
    }
    Path token = Path.of(vkTokenFile);
    if (!Files.isRegularFile(token)) {
      throw invalid("VKTokenFile %s (%s, or VKTOKENFILE) does not exist".formatted(vkTokenFile, path));
    }
    return token;
  }

  /**
   * One line per key that the command for {@code role} accepts but has no use for.
   *
   * @throws CrigateException.InvalidArgument for a key that role cannot honour, naming what to use instead
   */
  public List<String> warnings(Role role, Map<String, String> env) {
    List<String> warnings = new ArrayList<>();
    if (getConfigMapsOrSecretsSet && role != Role.PLUGIN) {
      warnings.add("GetConfigMapsOrSecrets: always on: the virtual node sends the ConfigMaps and Secrets a pod uses");
    }
    if (role == Role.API && !vkTokenFile.isEmpty()) {
      warnings.add("VKTokenFile: interLink's API left the token to an OAuth2 proxy, and so does crigate's unless "
          + "interlink-api is given --token-file");
    }
    if (role == Role.PLUGIN) {
      if (tsocks) {
        throw invalid("Tsocks: true is refused: crigate does not wrap jobs in tsocks; give the jobs their proxy in a "
            + "slurm backend flavor or the pod annotation slurm-job.vk.io/pre-exec");
      }
      if (!commandPrefix.isBlank()) {
        throw invalid(("CommandPrefix '%s' is refused: crigate's plugin adds nothing to the backend's job script; use the pod "
            + "annotation slurm-job.vk.io/pre-exec (a script run before the command)").formatted(commandPrefix));
      }
      if (!"docker".equals(sidecarService)) {
        slurmCommand("SbatchPath", sbatchPath, "sbatch", env).ifPresent(warnings::add);
        slurmCommand("ScancelPath", scancelPath, "scancel", env).ifPresent(warnings::add);
      }
      if (!tsocksPath.isEmpty() || !tsocksConfig.isEmpty() || !tsocksLoginNode.isEmpty()) {
        warnings.add("TsocksPath, TsocksConfig, TsocksLoginNode: unused, Tsocks is false");
      }
    }
    return warnings;
  }

  /**
   * crigate's slurm backend runs Slurm's commands by name, from its PATH (or where its ssh or rest
   * transport reaches Slurm), so a path is honoured when it is the program that name finds here.
   */
  private Optional<String> slurmCommand(String key, String value, String program, Map<String, String> env) {
    if (value.isEmpty()) {
      return Optional.empty();
    }
    Path given = Path.of(value);
    Optional<Path> onPath = ProgramPath.find(program, env.getOrDefault("PATH", ""));
    if (onPath.isEmpty()) {
      return Optional.of("%s: no %s on this PATH; the slurm backend runs %s where its transport reaches Slurm"
          .formatted(key, program, program));
    }
    if (!ProgramPath.same(given, onPath.get())) {
      throw invalid(("%s %s is refused: crigate's slurm backend runs the %s on its PATH, %s; put %s's directory first "
          + "on crigate's PATH").formatted(key, value, program, onPath.get(), value));
    }
    return Optional.empty();
  }

  private String url(String urlKey, String base, String portKey, String port) {
    if (base.isEmpty()) {
      throw invalid("%s: %s is empty".formatted(path, urlKey));
    }
    String joined = base + ":" + port(portKey, port);
    try {
      URI uri = new URI(joined);
      if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme()) || uri.getHost() == null) {
        throw invalid("%s + %s = %s: expected http(s)://host (without a port)".formatted(urlKey, portKey, joined));
      }
    } catch (URISyntaxException e) {
      throw invalid("%s + %s = %s: %s".formatted(urlKey, portKey, joined, e.getMessage()));
    }
    return joined;
  }

  private String port(String key, String value) {
    if (PortNumber.parse(value, 1).isEmpty()) {
      throw invalid("%s: %s '%s' is not a port number".formatted(path, key, value));
    }
    return value;
  }

  private static CrigateException.InvalidArgument invalid(String message) {
    return new CrigateException.InvalidArgument(message);
  }

  /** A key's value, or the environment variable that overrides it, as interLink read them. */
  private record Values(JsonNode yaml, Map<String, String> env) {

    String text(String key, String variable) {
      String fromEnv = variable == null ? null : env.get(variable);
      if (fromEnv != null && !fromEnv.isEmpty()) {
        return fromEnv;
      }
      JsonNode value = yaml.get(key);
      return value == null || value.isNull() ? "" : value.asText();
    }

    boolean flag(String key, String variable) {
      String fromEnv = env.getOrDefault(variable, "");
      if (!fromEnv.isEmpty()) {
        if (!fromEnv.equals("true") && !fromEnv.equals("false")) {
          throw invalid("%s must be true or false, not '%s'".formatted(variable, fromEnv));
        }
        return fromEnv.equals("true");
      }
      JsonNode value = yaml.get(key);
      if (value != null && !value.isNull() && !value.isBoolean()) {
        throw invalid("%s must be true or false, not '%s'".formatted(key, value.asText()));
      }
      return value != null && value.asBoolean();
    }
  }
}

package io.crigate.core.config;

import com.fasterxml.jackson.core.JsonLocation;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Builds the configuration from an optional YAML file and the flags, flags winning. Every problem
 * surfaces as one {@link CrigateException.InvalidArgument} whose message names it.
 */
public final class ConfigLoader {

  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private ConfigLoader() {}

  public static GatewayConfig load(ConfigFlags flags) {
    return load(flags, JsonNodeFactory.instance.objectNode());
  }

  /**
   * As {@link #load(ConfigFlags)}, with settings translated from another system's flags or files
   * (multi-cri, CRI Resource Manager) laid over the file key by key, and crigate's own flags over both.
   */
  public static GatewayConfig load(ConfigFlags flags, ObjectNode translated) {
    return ConfigReader.read(ConfigMerge.merge(DeepMerge.over(file(flags), translated), flags.toTree()));
  }

  /**
   * The state directory the flags and the file name (else the default), without requiring what only
   * a serving gateway needs, such as backends: for commands that act on a stopped gateway's state.
   */
  public static Path stateDir(ConfigFlags flags) {
    return ConfigReader.stateDir(ConfigMerge.merge(file(flags), flags.toTree()));
  }

  private static ObjectNode file(ConfigFlags flags) {
    return flags.config() == null ? JsonNodeFactory.instance.objectNode() : readFile(Path.of(flags.config()));
  }

  static ObjectNode readFile(Path path) {
    try {
      JsonNode root = YAML.readTree(Files.readString(path));
      if (root == null || root.isMissingNode() || root.isNull()) {
        return JsonNodeFactory.instance.objectNode();
      }
      if (!(root instanceof ObjectNode object)) {
        throw new CrigateException.InvalidArgument("config file %s: the top level must be a mapping".formatted(path));
      }
      return object;
    } catch (NoSuchFileException e) {
      throw new CrigateException.InvalidArgument("config file %s does not exist".formatted(path));
    } catch (JsonProcessingException e) {
      JsonLocation at = e.getLocation();
      String where = at == null ? "" : " line %d, column %d:".formatted(at.getLineNr(), at.getColumnNr());
      throw new CrigateException.InvalidArgument("config file %s:%s %s".formatted(path, where, e.getOriginalMessage()));
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("config file %s cannot be read: %s".formatted(path, e.getMessage()));
    }
  }
}

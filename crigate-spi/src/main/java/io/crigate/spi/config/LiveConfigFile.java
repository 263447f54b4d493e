package io.crigate.spi.config;

import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.Optional;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A section's live file ({@code policy.configFile}, {@code hooks.configFile}): a YAML mapping of
 * that section's keys which may change while crigate runs. Every change is read and handed on; a
 * file that cannot be read, or content the receiver rejects with
 * {@link CrigateException.InvalidArgument}, is logged and ignored, so the running configuration
 * stays. The one mechanism behind every live setting.
 */
public final class LiveConfigFile implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LiveConfigFile.class);
  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final String section;
  private final Path file;
  private final WatchService watcher;
  private final Thread thread;

  private LiveConfigFile(String section, Path file, WatchService watcher, Consumer<Optional<ObjectNode>> onChange) {
    this.section = section;
    this.file = file;
    this.watcher = watcher;
    this.thread = Thread.ofVirtual().name(section + "-config-watch").start(() -> watch(onChange));
  }

  /**
   * The file's keys; empty while the file does not exist (an empty file is an empty mapping).
   *
   * @throws CrigateException.InvalidArgument naming {@code section.configFile} and the file when it is
   *     not YAML or not a mapping
   */
  public static Optional<ObjectNode> read(String section, Path file) {
    if (!Files.exists(file)) {
      return Optional.empty();
    }
    JsonNode content;
    try {
      content = YAML.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("%s.configFile %s: %s".formatted(section, file, e.getMessage()));
    }
    if (content == null || content.isMissingNode() || content.isNull()) {
      return Optional.of(YAML.createObjectNode());
    }
    if (content instanceof ObjectNode mapping) {
      return Optional.of(mapping);
    }
    throw new CrigateException.InvalidArgument("%s.configFile %s must be a mapping of %s settings"
        .formatted(section, file, section));
  }

  /** {@code base} (a section of the main configuration) with the file's keys on top. */
  public static ObjectNode overlay(JsonNode base, Optional<ObjectNode> file) {
    ObjectNode merged = base.isObject() ? ((ObjectNode) base).deepCopy() : YAML.createObjectNode();
    file.ifPresent(merged::setAll);
    return merged;
  }

  /**
   * Hands {@link #read} of {@code file} to {@code onChange} after every change of it, removal
   * included (then empty), until closed.
   *
   * @throws CrigateException.InvalidArgument when the file's directory cannot be watched
   */
  public static LiveConfigFile watch(String section, Path file, Consumer<Optional<ObjectNode>> onChange) {
    try {
      WatchService watcher = file.getFileSystem().newWatchService();
      file.toAbsolutePath().getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY,
          StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
      return new LiveConfigFile(section, file, watcher, onChange);
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("%s.configFile: cannot watch %s: %s".formatted(section, file, e.getMessage()));
    }
  }

  private void watch(Consumer<Optional<ObjectNode>> onChange) {
    Path name = file.getFileName();
    try {
      while (true) {
        WatchKey key = watcher.take();
        boolean ours = key.pollEvents().stream().anyMatch(event -> name.equals(event.context()));
        key.reset();
        if (ours) {
          apply(onChange);
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed
    }
  }

  private void apply(Consumer<Optional<ObjectNode>> onChange) {
    try {
      onChange.accept(read(section, file));
    } catch (CrigateException e) {
      log.error("rejected {} configuration from {}, the previous one stays active: {}", section, file, e.getMessage());
    }
  }

  @Override
  public void close() {
    try {
      watcher.close();
    } catch (IOException e) {
      log.debug("closing the watch of {}", file, e);
    }
    thread.interrupt();
  }

  @Override
  public String toString() {
    return "watch of " + file;
  }
}

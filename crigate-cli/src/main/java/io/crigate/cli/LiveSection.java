package io.crigate.cli;

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
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A configuration section that changes while crigate runs: the section of the main configuration,
 * with the keys of its {@code configFile} on top, handed to a listener after every change of that
 * file. A file that cannot be read, or a section the listener rejects, is logged and ignored, so the
 * running configuration stays. One mechanism for every adjustment plugin's live settings.
 */
final class LiveSection implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(LiveSection.class);
  private static final ObjectMapper YAML =
      YAMLMapper.builder().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION).build();

  private final String name;
  private final Path file;
  private final JsonNode base;
  private final WatchService watcher;
  private final Thread thread;

  private LiveSection(String name, Path file, JsonNode base, WatchService watcher, Consumer<JsonNode> listener) {
    this.name = name;
    this.file = file;
    this.base = base;
    this.watcher = watcher;
    this.thread = Thread.ofVirtual().name(name + "-config-watch").start(() -> watch(listener));
  }

  /** The file named by {@code section.configFile}; empty when the section has none. */
  static String configFile(JsonNode section) {
    return section.path("configFile").asText("");
  }

  /**
   * The section {@code name} with the file's keys on top; the section alone while the file is absent.
   *
   * @throws CrigateException.InvalidArgument naming the file when it is not YAML or not a mapping
   */
  static JsonNode merged(String name, Path file, JsonNode base) {
    ObjectNode merged = base.isObject() ? ((ObjectNode) base).deepCopy() : YAML.createObjectNode();
    if (!Files.exists(file)) {
      return merged;
    }
    JsonNode overlay;
    try {
      overlay = YAML.readTree(Files.readString(file));
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("%s.configFile %s: %s".formatted(name, file, e.getMessage()));
    }
    if (overlay != null && !overlay.isMissingNode() && !overlay.isNull()) {
      if (!overlay.isObject()) {
        throw new CrigateException.InvalidArgument("%s.configFile %s must be a mapping of %s settings"
            .formatted(name, file, name));
      }
      merged.setAll((ObjectNode) overlay);
    }
    return merged;
  }

  /** Watches {@code file}; {@code listener} gets the merged section after each change and may reject it. */
  static LiveSection watch(String name, Path file, JsonNode base, Consumer<JsonNode> listener) {
    try {
      WatchService watcher = file.getFileSystem().newWatchService();
      file.toAbsolutePath().getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY,
          StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
      return new LiveSection(name, file, base, watcher, listener);
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("%s.configFile: cannot watch %s: %s".formatted(name, file, e.getMessage()));
    }
  }

  private void watch(Consumer<JsonNode> listener) {
    Path fileName = file.getFileName();
    try {
      while (true) {
        WatchKey key = watcher.take();
        boolean ours = key.pollEvents().stream().anyMatch(event -> fileName.equals(event.context()));
        key.reset();
        if (ours) {
          apply(listener);
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed
    }
  }

  private void apply(Consumer<JsonNode> listener) {
    try {
      listener.accept(merged(name, file, base));
    } catch (CrigateException e) {
      log.error("rejected {} configuration from {}, the previous one stays active: {}", name, file, e.getMessage());
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

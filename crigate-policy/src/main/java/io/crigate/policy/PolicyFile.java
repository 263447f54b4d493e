package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
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
 * The live policy file ({@code policy.configFile}): its keys override the {@code policy} section of
 * the main configuration, and every change to it is handed to a listener. A file that cannot be
 * read or parsed is logged and ignored, so the running configuration stays.
 */
final class PolicyFile implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PolicyFile.class);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Path file;
  private final JsonNode base;
  private final WatchService watcher;
  private final Thread thread;

  private PolicyFile(Path file, JsonNode base, WatchService watcher, Consumer<JsonNode> listener) {
    this.file = file;
    this.base = base;
    this.watcher = watcher;
    this.thread = Thread.ofVirtual().name("policy-file-watch").start(() -> watch(listener));
  }

  /** Starts watching {@code file}; {@code listener} gets the merged section after each change. */
  static PolicyFile watch(Path file, JsonNode base, Consumer<JsonNode> listener) {
    try {
      WatchService watcher = file.getFileSystem().newWatchService();
      file.toAbsolutePath().getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY,
          StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
      return new PolicyFile(file, base, watcher, listener);
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("policy.configFile: cannot watch %s: %s".formatted(file, e.getMessage()));
    }
  }

  /** The main section with the file's keys on top; the main section alone when the file is absent. */
  static JsonNode merged(Path file, JsonNode base) {
    ObjectNode merged = base.isObject() ? ((ObjectNode) base).deepCopy() : YAML.createObjectNode();
    if (!Files.exists(file)) {
      return merged;
    }
    JsonNode overlay;
    try {
      overlay = YAML.readTree(file.toFile());
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("policy file %s: %s".formatted(file, e.getMessage()));
    }
    if (overlay != null && !overlay.isMissingNode() && !overlay.isNull()) {
      if (!overlay.isObject()) {
        throw new CrigateException.InvalidArgument("policy file %s must be a mapping of policy settings".formatted(file));
      }
      merged.setAll((ObjectNode) overlay);
    }
    return merged;
  }

  private void watch(Consumer<JsonNode> listener) {
    Path name = file.getFileName();
    try {
      while (true) {
        WatchKey key = watcher.take();
        boolean ours = key.pollEvents().stream().anyMatch(event -> name.equals(event.context()));
        key.reset();
        if (ours) {
          try {
            listener.accept(merged(file, base));
          } catch (CrigateException e) {
            log.error("rejected policy configuration from {}, the previous one stays active: {}", file, e.getMessage());
          }
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed
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
}

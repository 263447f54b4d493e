package io.crigate.policy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.crigate.spi.CrigateException;
import java.io.IOException;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The live policy file ({@code policy.configFile}), the {@link ConfigLayer#FILE} layer: every change
 * to it reconfigures the policy, and its removal drops the layer. A file that cannot be read, parsed
 * or applied is logged and ignored, so the running configuration stays.
 */
final class PolicyFile implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(PolicyFile.class);
  private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

  private final Path file;
  private final WatchService watcher;
  private final Thread thread;

  private PolicyFile(Path file, WatchService watcher, ActivePolicy policy) {
    this.file = file;
    this.watcher = watcher;
    this.thread = Thread.ofVirtual().name("policy-file-watch").start(() -> watch(policy));
  }

  /** Starts applying every change of {@code file} to {@code policy}. */
  static PolicyFile watch(Path file, ActivePolicy policy) {
    try {
      WatchService watcher = file.getFileSystem().newWatchService();
      file.toAbsolutePath().getParent().register(watcher, StandardWatchEventKinds.ENTRY_MODIFY,
          StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_DELETE);
      return new PolicyFile(file, watcher, policy);
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("policy.configFile: cannot watch %s: %s".formatted(file, e.getMessage()));
    }
  }

  /** {@code layers} with the file's content as the {@link ConfigLayer#FILE} layer, when the file exists. */
  static PolicyLayers layered(Path file, PolicyLayers layers) {
    return Files.exists(file) ? layers.with(ConfigLayer.FILE, read(file)) : layers.without(ConfigLayer.FILE);
  }

  private static JsonNode read(Path file) {
    JsonNode overlay;
    try {
      overlay = YAML.readTree(file.toFile());
    } catch (IOException e) {
      throw new CrigateException.InvalidArgument("policy file %s: %s".formatted(file, e.getMessage()));
    }
    if (overlay == null || overlay.isMissingNode() || overlay.isNull()) {
      return YAML.createObjectNode();
    }
    if (!overlay.isObject()) {
      throw new CrigateException.InvalidArgument("policy file %s must be a mapping of policy settings".formatted(file));
    }
    return overlay;
  }

  private void watch(ActivePolicy policy) {
    Path name = file.getFileName();
    try {
      while (true) {
        WatchKey key = watcher.take();
        boolean ours = key.pollEvents().stream().anyMatch(event -> name.equals(event.context()));
        key.reset();
        if (ours) {
          reload(policy);
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // closed
    }
  }

  private void reload(ActivePolicy policy) {
    try {
      if (Files.exists(file)) {
        policy.reconfigure(ConfigLayer.FILE, read(file));
      } else {
        policy.clear(ConfigLayer.FILE);
      }
    } catch (CrigateException e) {
      log.error("rejected policy configuration from {}, the previous one stays active: {}", file, e.getMessage());
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

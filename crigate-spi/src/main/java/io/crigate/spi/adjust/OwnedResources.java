package io.crigate.spi.adjust;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What lives exactly as long as one plugin, such as the watch of its live configuration file: the
 * plugin closes them all when it closes, and one that fails to close does not keep the others open.
 */
public final class OwnedResources implements AutoCloseable {

  private static final Logger log = LoggerFactory.getLogger(OwnedResources.class);

  private final String owner;
  private final List<AutoCloseable> resources = new CopyOnWriteArrayList<>();

  /** @param owner names the plugin in the warning about a resource that failed to close */
  public OwnedResources(String owner) {
    this.owner = owner;
  }

  public void add(AutoCloseable resource) {
    resources.add(resource);
  }

  @Override
  public void close() {
    for (AutoCloseable resource : resources) {
      try {
        resource.close();
      } catch (Exception e) {
        log.warn("closing {} of {} failed: {}", resource, owner, e.toString());
      }
    }
  }
}

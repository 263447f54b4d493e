package io.crigate.scheduler.extender;

import io.crigate.images.BoundedCache;
import io.crigate.spi.CrigateException;
import io.crigate.spi.ImageRef;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says once per registry that its images are scored as unknown because the registry is not
 * allowed. Pods name registries freely, so the registries already reported are an LRU set (one
 * forgotten is reported again).
 */
final class RefusedRegistries {

  private static final Logger LOG = LoggerFactory.getLogger(RefusedRegistries.class);
  private static final int REMEMBERED = 1024;

  private final BoundedCache<String, Boolean> reported = new BoundedCache<>(REMEMBERED);

  void report(String image, CrigateException.PermissionDenied refusal) {
    String registry = ImageRef.parse(image).registry();
    if (reported.putIfAbsent(registry, true)) {
      // the reference and the refusal name a registry and a path, never a credential
      LOG.warn("images of registry {} are scored as unknown layers (first: {}): {}", registry, image, refusal.getMessage());
    }
  }
}

package io.crigate.hooks;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.Mount;
import io.crigate.spi.adjust.Quantity;

/**
 * What a container with a share of a GPU (memory ratio below 100) needs under HAMi-core, as
 * Koordinator's GPU hook gives it: the memory and SM limits HAMi-core's library reads, the library
 * itself preloaded, and two recursive binds at the same paths as on the node: the library, and
 * {@code /tmp/vgpulock}, where HAMi-core's processes on one GPU coordinate. A whole GPU needs none.
 *
 * @param libraryPath the HAMi-core library on the node, a file (koordlet's
 *     {@code --hami-core-library-directory-path}, a file path despite the name)
 */
record HamiCore(String libraryPath) {

  static final String SETTING = "hamiCoreLibraryPath";
  static final String DEFAULT_LIBRARY = "/usr/local/vgpu/libvgpu.so";
  static final String LOCK_DIR = "/tmp/vgpulock";
  static final String PRELOAD = "LD_PRELOAD";
  static final String MEMORY_LIMIT = "CUDA_DEVICE_MEMORY_LIMIT";
  static final String SM_LIMIT = "CUDA_DEVICE_SM_LIMIT";

  HamiCore {
    if (!libraryPath.startsWith("/")) {
      throw new IllegalArgumentException("HAMi-core library path '" + libraryPath + "' is not absolute");
    }
  }

  /** {@code hamiCoreLibraryPath} of the hook's section at {@code path}, an absolute file path. */
  static HamiCore fromSettings(JsonNode settings, String path) {
    JsonNode value = settings.path(SETTING);
    if (value.isMissingNode() || value.isNull()) {
      return new HamiCore(DEFAULT_LIBRARY);
    }
    if (!value.isTextual() || !value.asText().startsWith("/")) {
      throw new CrigateException.InvalidArgument("%s.%s must be an absolute file path, got %s"
          .formatted(path, SETTING, value));
    }
    return new HamiCore(value.asText());
  }

  /** Adds the share's settings to {@code b} when the GPU's {@code resources} are a share (ratio below 100). */
  void addShare(JsonNode resources, Adjustment.Builder b) {
    if (amount(resources, KoordinatorKeys.GPU_MEMORY_RATIO, true) >= 100) {
      return;
    }
    b.env(MEMORY_LIMIT, Long.toString(amount(resources, KoordinatorKeys.GPU_MEMORY, true)));
    long core = amount(resources, KoordinatorKeys.GPU_CORE, false);
    if (core >= 0) {
      b.env(SM_LIMIT, Long.toString(core));
    }
    b.env(PRELOAD, libraryPath).mount(Mount.samePath(libraryPath)).mount(Mount.samePath(LOCK_DIR));
  }

  private static long amount(JsonNode resources, String key, boolean required) {
    JsonNode value = resources.path(key);
    if (value.isMissingNode() || value.isNull()) {
      if (required) {
        throw AnnotationJson.invalid(KoordinatorKeys.DEVICE_ALLOCATED, "gpu resources lack " + key + " for HAMi-core");
      }
      return -1;
    }
    try {
      return Quantity.bytes(value.asText());
    } catch (IllegalArgumentException | ArithmeticException e) {
      throw AnnotationJson.invalid(KoordinatorKeys.DEVICE_ALLOCATED, "gpu resource %s: %s".formatted(key, e.getMessage()));
    }
  }
}

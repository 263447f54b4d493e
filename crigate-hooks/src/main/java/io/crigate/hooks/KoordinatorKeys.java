package io.crigate.hooks;

/** The label, annotation and resource names Koordinator writes on pods; spelled exactly as Koordinator does. */
final class KoordinatorKeys {

  static final String QOS_CLASS_LABEL = "koordinator.sh/qosClass";
  static final String GPU_ISOLATION_PROVIDER_LABEL = "koordinator.sh/gpu-isolation-provider";
  static final String HAMI_CORE = "HAMi-core";

  /** koord-scheduler's allocation result: {@code {"cpuset":"0-3"}}. */
  static final String RESOURCE_STATUS = "scheduling.koordinator.sh/resource-status";
  /** koord-scheduler's device allocation: {@code {"gpu":[{"minor":0,"resources":{...}}]}}. */
  static final String DEVICE_ALLOCATED = "scheduling.koordinator.sh/device-allocated";
  /**
   * The pod's extended resources per container, written by Koordinator's webhook because CRI
   * requests do not carry them: {@code {"containers":{"c":{"requests":{...},"limits":{...}}}}}.
   */
  static final String EXTENDED_RESOURCE_SPEC = "node.koordinator.sh/extended-resource-spec";

  /** Batch CPU is counted in millicores: a quantity of 1000 is one core, so its plain value is read. */
  static final String BATCH_CPU = "kubernetes.io/batch-cpu";
  static final String BATCH_MEMORY = "kubernetes.io/batch-memory";

  static final String GPU_CORE = "koordinator.sh/gpu-core";
  static final String GPU_MEMORY = "koordinator.sh/gpu-memory";
  static final String GPU_MEMORY_RATIO = "koordinator.sh/gpu-memory-ratio";

  private KoordinatorKeys() {}
}

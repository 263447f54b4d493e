package io.crigate.interlink.plugin;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.ContainerMetadata;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.api.cri.v1.LinuxContainerConfig;
import io.crigate.api.cri.v1.LinuxContainerResources;
import io.crigate.api.cri.v1.LinuxPodSandboxConfig;
import io.crigate.api.cri.v1.LinuxSandboxSecurityContext;
import io.crigate.api.cri.v1.Mount;
import io.crigate.api.cri.v1.NamespaceMode;
import io.crigate.api.cri.v1.NamespaceOption;
import io.crigate.api.cri.v1.PodSandboxConfig;
import io.crigate.api.cri.v1.PodSandboxMetadata;
import io.crigate.interlink.wire.BadRequest;
import io.crigate.interlink.wire.DownwardApi;
import io.crigate.interlink.wire.RetrievedContainer;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvFromSource;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.EnvVarSource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.VolumeMount;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Turns a v1.Pod into a CRI sandbox and containers. Pod annotations become sandbox annotations
 * unchanged, so a backend reads its own ({@code slurm-job.vk.io/*} for Slurm); CPU and memory limits
 * (else requests) become the CRI Linux resources a backend turns into job settings.
 */
final class PodTranslator {

  static final String LABEL_UID = "io.kubernetes.pod.uid";
  static final String LABEL_NAME = "io.kubernetes.pod.name";
  static final String LABEL_NAMESPACE = "io.kubernetes.pod.namespace";
  static final String LABEL_CONTAINER = "io.kubernetes.container.name";
  private static final long CPU_PERIOD = 100_000;

  private final String runtimeHandler;
  /** What a resourceFieldRef of a limit the container does not set resolves to, as on a kubelet. */
  private final Map<String, Quantity> allocatable;

  PodTranslator(String runtimeHandler, Map<String, Quantity> allocatable) {
    this.runtimeHandler = runtimeHandler;
    this.allocatable = allocatable;
  }

  String runtimeHandler() {
    return runtimeHandler;
  }

  /** Checks what every later step relies on; names the field that is wrong. */
  static void validate(Pod pod) {
    if (pod == null) {
      throw new BadRequest("pod", "is required");
    }
    if (pod.getMetadata() == null || blank(pod.getMetadata().getUid())) {
      throw new BadRequest("pod.metadata.uid", "is required");
    }
    if (blank(pod.getMetadata().getName())) {
      throw new BadRequest("pod.metadata.name", "is required");
    }
    if (pod.getSpec() == null || pod.getSpec().getContainers() == null || pod.getSpec().getContainers().isEmpty()) {
      throw new BadRequest("pod.spec.containers", "at least one container is required");
    }
    List<Container> all = new ArrayList<>(initContainers(pod));
    all.addAll(pod.getSpec().getContainers());
    for (int i = 0; i < all.size(); i++) {
      Container c = all.get(i);
      String field = containerField(pod, i);
      if (blank(c.getName())) {
        throw new BadRequest(field + ".name", "is required");
      }
      if (blank(c.getImage())) {
        throw new BadRequest(field + ".image", "is required");
      }
    }
  }

  static List<Container> initContainers(Pod pod) {
    return pod.getSpec().getInitContainers() == null ? List.of() : pod.getSpec().getInitContainers();
  }

  PodPlan plan(Pod pod, List<RetrievedContainer> data, Map<String, Path> volumes, Path logDir) {
    var meta = pod.getMetadata();
    String namespace = namespace(pod);
    PodSandboxConfig.Builder sandbox = PodSandboxConfig.newBuilder()
        .setMetadata(PodSandboxMetadata.newBuilder().setName(meta.getName()).setNamespace(namespace)
            .setUid(meta.getUid()))
        .setLogDirectory(logDir.toString())
        // interLink pods have no cluster network; the node's network is what a job gets anyway.
        .setLinux(LinuxPodSandboxConfig.newBuilder().setSecurityContext(LinuxSandboxSecurityContext.newBuilder()
            .setNamespaceOptions(NamespaceOption.newBuilder().setNetwork(NamespaceMode.NODE))))
        .putAllLabels(labels(pod));
    if (meta.getLabels() != null) {
      sandbox.putAllLabels(meta.getLabels());
    }
    if (meta.getAnnotations() != null) {
      sandbox.putAllAnnotations(meta.getAnnotations());
    }
    List<ConfigMap> maps = data.stream().flatMap(c -> c.configMaps() == null ? java.util.stream.Stream.empty()
        : c.configMaps().stream()).toList();
    List<Secret> secrets = data.stream().flatMap(c -> c.secrets() == null ? java.util.stream.Stream.empty()
        : c.secrets().stream()).toList();
    List<PodPlan.Step> steps = new ArrayList<>();
    List<Container> inits = initContainers(pod);
    List<Container> all = new ArrayList<>(inits);
    all.addAll(pod.getSpec().getContainers());
    for (int i = 0; i < all.size(); i++) {
      Container c = all.get(i);
      ContainerConfig config = container(pod, c, containerField(pod, i), volumes, maps, secrets);
      steps.add(new PodPlan.Step(c.getName(), i < inits.size(), config));
    }
    return new PodPlan(sandbox.build(), steps);
  }

  static String namespace(Pod pod) {
    return blank(pod.getMetadata().getNamespace()) ? "default" : pod.getMetadata().getNamespace();
  }

  private static Map<String, String> labels(Pod pod) {
    return Map.of(LABEL_UID, pod.getMetadata().getUid(), LABEL_NAME, pod.getMetadata().getName(),
        LABEL_NAMESPACE, namespace(pod));
  }

  private static String containerField(Pod pod, int index) {
    int inits = initContainers(pod).size();
    return index < inits ? "pod.spec.initContainers[%d]".formatted(index)
        : "pod.spec.containers[%d]".formatted(index - inits);
  }

  private ContainerConfig container(Pod pod, Container c, String field, Map<String, Path> volumes,
      List<ConfigMap> maps, List<Secret> secrets) {
    ContainerConfig.Builder config = ContainerConfig.newBuilder()
        .setMetadata(ContainerMetadata.newBuilder().setName(c.getName()))
        .setImage(ImageSpec.newBuilder().setImage(c.getImage()).setRuntimeHandler(runtimeHandler))
        .setLogPath(c.getName() + "/0.log")
        .putAllLabels(labels(pod))
        .putLabels(LABEL_CONTAINER, c.getName());
    if (c.getCommand() != null) {
      config.addAllCommand(c.getCommand());
    }
    if (c.getArgs() != null) {
      config.addAllArgs(c.getArgs());
    }
    if (c.getWorkingDir() != null) {
      config.setWorkingDir(c.getWorkingDir());
    }
    env(pod, c, field, maps, secrets).forEach((k, v) ->
        config.addEnvs(KeyValue.newBuilder().setKey(k).setValue(ByteString.copyFromUtf8(v))));
    List<VolumeMount> mounts = c.getVolumeMounts() == null ? List.of() : c.getVolumeMounts();
    for (int m = 0; m < mounts.size(); m++) {
      VolumeMount mount = mounts.get(m);
      Path host = volumes.get(mount.getName());
      if (host == null) {
        throw new BadRequest(field + ".volumeMounts[%d].name".formatted(m),
            "no volume named '%s' in pod.spec.volumes".formatted(mount.getName()));
      }
      if (!blank(mount.getSubPath())) {
        host = host.resolve(mount.getSubPath()).normalize();
      }
      config.addMounts(Mount.newBuilder().setHostPath(host.toString()).setContainerPath(mount.getMountPath())
          .setReadonly(Boolean.TRUE.equals(mount.getReadOnly())));
    }
    config.setLinux(LinuxContainerConfig.newBuilder().setResources(resources(c.getResources(), field)));
    return config.build();
  }

  /** Limits, else requests: a job must ask Slurm for what the pod needs, and a limit is the most it uses. */
  static LinuxContainerResources resources(ResourceRequirements requirements, String field) {
    LinuxContainerResources.Builder resources = LinuxContainerResources.newBuilder();
    if (requirements == null) {
      return resources.build();
    }
    Quantity cpu = pick(requirements, "cpu");
    if (cpu != null) {
      BigDecimal cores = amount(cpu, field + ".resources.cpu");
      resources.setCpuPeriod(CPU_PERIOD)
          .setCpuQuota(cores.multiply(BigDecimal.valueOf(CPU_PERIOD)).setScale(0, RoundingMode.CEILING).longValueExact());
    }
    Quantity memory = pick(requirements, "memory");
    if (memory != null) {
      resources.setMemoryLimitInBytes(amount(memory, field + ".resources.memory")
          .setScale(0, RoundingMode.CEILING).longValueExact());
    }
    return resources.build();
  }

  private static Quantity pick(ResourceRequirements requirements, String name) {
    if (requirements.getLimits() != null && requirements.getLimits().get(name) != null) {
      return requirements.getLimits().get(name);
    }
    return requirements.getRequests() == null ? null : requirements.getRequests().get(name);
  }

  private static BigDecimal amount(Quantity quantity, String field) {
    try {
      return Quantity.getAmountInBytes(quantity);
    } catch (RuntimeException e) {
      throw new BadRequest(field, "'%s' is not a quantity".formatted(quantity));
    }
  }

  private Map<String, String> env(Pod pod, Container c, String field, List<ConfigMap> maps, List<Secret> secrets) {
    Map<String, String> env = new LinkedHashMap<>();
    List<EnvFromSource> from = c.getEnvFrom() == null ? List.of() : c.getEnvFrom();
    for (int i = 0; i < from.size(); i++) {
      EnvFromSource source = from.get(i);
      String prefix = source.getPrefix() == null ? "" : source.getPrefix();
      String where = field + ".envFrom[%d]".formatted(i);
      if (source.getConfigMapRef() != null) {
        ConfigMap map = configMap(maps, source.getConfigMapRef().getName());
        if (map != null && map.getData() != null) {
          map.getData().forEach((k, v) -> env.put(prefix + k, v));
        } else if (map == null && !Boolean.TRUE.equals(source.getConfigMapRef().getOptional())) {
          throw new BadRequest(where + ".configMapRef", "ConfigMap '%s' was not sent with the pod"
              .formatted(source.getConfigMapRef().getName()));
        }
      }
      if (source.getSecretRef() != null) {
        Secret secret = secret(secrets, source.getSecretRef().getName());
        if (secret != null && secret.getData() != null) {
          secret.getData().forEach((k, v) -> env.put(prefix + k, decode(v, where)));
        } else if (secret == null && !Boolean.TRUE.equals(source.getSecretRef().getOptional())) {
          throw new BadRequest(where + ".secretRef", "Secret '%s' was not sent with the pod"
              .formatted(source.getSecretRef().getName()));
        }
      }
    }
    List<EnvVar> vars = c.getEnv() == null ? List.of() : c.getEnv();
    for (int i = 0; i < vars.size(); i++) {
      EnvVar var = vars.get(i);
      String where = field + ".env[%d]".formatted(i);
      if (blank(var.getName())) {
        throw new BadRequest(where + ".name", "is required");
      }
      String value = var.getValueFrom() == null ? Objects.requireNonNullElse(var.getValue(), "")
          : valueFrom(pod, c.getName(), var.getValueFrom(), where + ".valueFrom", maps, secrets);
      if (value != null) {
        env.put(var.getName(), value);
      }
    }
    return env;
  }

  private String valueFrom(Pod pod, String container, EnvVarSource source, String where, List<ConfigMap> maps, List<Secret> secrets) {
    if (source.getConfigMapKeyRef() != null) {
      var ref = source.getConfigMapKeyRef();
      ConfigMap map = configMap(maps, ref.getName());
      String value = map == null || map.getData() == null ? null : map.getData().get(ref.getKey());
      if (value == null && !Boolean.TRUE.equals(ref.getOptional())) {
        throw new BadRequest(where + ".configMapKeyRef", "key '%s' of ConfigMap '%s' was not sent with the pod"
            .formatted(ref.getKey(), ref.getName()));
      }
      return value;
    }
    if (source.getSecretKeyRef() != null) {
      var ref = source.getSecretKeyRef();
      Secret secret = secret(secrets, ref.getName());
      String value = secret == null || secret.getData() == null ? null : secret.getData().get(ref.getKey());
      if (value == null && !Boolean.TRUE.equals(ref.getOptional())) {
        throw new BadRequest(where + ".secretKeyRef", "key '%s' of Secret '%s' was not sent with the pod"
            .formatted(ref.getKey(), ref.getName()));
      }
      return value == null ? null : decode(value, where);
    }
    if (source.getFieldRef() != null) {
      try {
        return DownwardApi.field(pod, source.getFieldRef().getFieldPath());
      } catch (IllegalArgumentException e) {
        throw new BadRequest(where + ".fieldRef.fieldPath", e.getMessage());
      }
    }
    if (source.getResourceFieldRef() != null) {
      try {
        return DownwardApi.resource(pod, container, source.getResourceFieldRef(), allocatable);
      } catch (IllegalArgumentException e) {
        throw new BadRequest(where + ".resourceFieldRef", e.getMessage());
      }
    }
    throw new BadRequest(where, "only configMapKeyRef, secretKeyRef, fieldRef and resourceFieldRef are supported");
  }

  private static ConfigMap configMap(List<ConfigMap> maps, String name) {
    return maps.stream().filter(m -> m.getMetadata() != null && Objects.equals(m.getMetadata().getName(), name))
        .findFirst().orElse(null);
  }

  private static Secret secret(List<Secret> secrets, String name) {
    return secrets.stream().filter(s -> s.getMetadata() != null && Objects.equals(s.getMetadata().getName(), name))
        .findFirst().orElse(null);
  }

  private static String decode(String base64, String where) {
    try {
      return new String(Base64.getDecoder().decode(base64), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new BadRequest(where, "secret value is not base64");
    }
  }

  private static boolean blank(String value) {
    return value == null || value.isBlank();
  }
}

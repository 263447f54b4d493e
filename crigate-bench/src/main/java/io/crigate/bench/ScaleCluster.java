package io.crigate.bench;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import io.crigate.images.NodeImageLayersCodec;
import io.crigate.images.NodeLayerInventory;
import io.crigate.scheduler.NodeImageStatus;
import io.crigate.scheduler.sim.ImageCatalog;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.server.mock.KubernetesAttributesExtractor;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.crud.AttributeSet;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * A large cluster as an API server holds it: Nodes of realistic size (labels, conditions, the 50
 * largest images in {@code status.images}), one {@code NodeImageLayers} per node, and Deployment-like
 * Pods bound to them (managed fields, status, a projected token volume). Node inventories hold
 * {@code imagesPerNode} images drawn from the simulator's catalog. Every layer digest is the SHA-256 of
 * a short text ({@link #blob}), so the pod's images can be pushed to a real registry as blobs of that
 * text with manifests stating the catalog's sizes: the extender reads only manifests.
 */
final class ScaleCluster {

  static final String REGISTRY_REPOSITORY = "crigate-scale";
  /** The CPU requests pods draw from, millicores. */
  private static final int[] POD_CPU = {50, 100, 200, 250, 500};

  private final KubernetesSerialization serialization = new KubernetesSerialization();
  private final String registry;
  private final List<ImageLayers> catalog;
  private final Map<String, String> blobs = new HashMap<>();
  private final List<String> nodeNames = new ArrayList<>();
  private final Map<String, String> podTemplates = new HashMap<>();
  private static final int TEMPLATE_CPU = 777;

  ScaleCluster(String registry) {
    this.registry = registry;
    List<ImageLayers> images = new ArrayList<>();
    for (ImageLayers image : ImageCatalog.generate(42, 1000).images()) {
      List<Layer> layers = image.layers().stream().map(l -> new Layer(blobDigest(l.digest()), l.size())).toList();
      images.add(new ImageLayers(registry + "/" + REGISTRY_REPOSITORY + "/" + image.reference(), image.digest(), layers));
    }
    this.catalog = List.copyOf(images);
  }

  private String blobDigest(String catalogDigest) {
    String text = "crigate-scale layer " + catalogDigest;
    String digest = sha256(text.getBytes(StandardCharsets.UTF_8));
    blobs.put(digest, text);
    return digest;
  }

  static String sha256(byte[] bytes) {
    try {
      return "sha256:" + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK ships SHA-256", e);
    }
  }

  /** The content whose digest a catalog layer carries. */
  byte[] blob(String digest) {
    return blobs.get(digest).getBytes(StandardCharsets.UTF_8);
  }

  /** The images of the pod the benchmark schedules: an init and a regular container, as PrioritizeBenchmark. */
  List<ImageLayers> podImages() {
    return List.of(catalog.get(3), catalog.get(7));
  }

  List<String> nodeNames() {
    return nodeNames;
  }

  /**
   * Stores {@code nodes} Nodes and NodeImageLayers straight into the CRUD dispatcher's map, keyed as
   * its POST handler keys them, and {@code pods} Pods into {@code podList}; each object with a fresh
   * resourceVersion. Creating through HTTP instead costs a scan of the whole map per create.
   */
  void populate(KubernetesCrudDispatcher store, PodListDispatcher podList, int nodes, int imagesPerNode, int pods) {
    SplittableRandom random = new SplittableRandom(42);
    for (int n = 0; n < nodes; n++) {
      String name = "ip-10-%d-%d-%d.eu-west-1.compute.internal".formatted(n / 65536, n / 256 % 256, n % 256);
      nodeNames.add(name);
      Map<String, Long> layers = new HashMap<>();
      Map<String, Long> images = new HashMap<>();
      for (int i = 0; i < imagesPerNode; i++) {
        ImageLayers image = catalog.get(random.nextInt(catalog.size()));
        image.layers().forEach(l -> layers.put(l.digest(), l.size()));
        images.put(image.reference(), image.totalSize());
      }
      put(store, node(name, NodeImageStatus.largest(images, NodeImageStatus.DEFAULT_MAX_IMAGES)));
      put(store, NodeImageLayersCodec.toResource(new NodeLayerInventory(name, layers, Set.of(), Instant.now())));
    }
    for (int p = 0; p < pods; p++) {
      PodDraw draw = draw(p, random);
      podList.add(withStoredMetadata(podJson(draw), podName(draw), store.requestResourceVersion()));
    }
  }

  private static String namespace(int app) {
    return "team-%02d".formatted(app % 40);
  }

  private static Map<String, String> labels(int app) {
    return Map.of("app", "app-%03d".formatted(app), "pod-template-hash", templateHash(app));
  }

  private void put(KubernetesCrudDispatcher store, HasMetadata resource) {
    AttributeSet key = ((KubernetesAttributesExtractor) store.getAttributeExtractor()).extract(resource);
    store.getMap().put(key, withStoredMetadata(serialization.asJson(resource), resource.getMetadata().getName(),
        store.requestResourceVersion()));
  }

  /** What the API server adds to an object it stores: resourceVersion, uid, creationTimestamp. */
  private static String withStoredMetadata(String json, String name, long resourceVersion) {
    String metadata = "\"metadata\":{\"resourceVersion\":\"%d\",\"uid\":\"%s\",\"creationTimestamp\":\"2026-11-20T08:00:00Z\","
        .formatted(resourceVersion, java.util.UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)));
    return json.replaceFirst("\"metadata\":\\{", java.util.regex.Matcher.quoteReplacement(metadata));
  }

  /** What varies between the benchmark's pods. */
  record PodDraw(int index, int app, String node, String phase, int cpuMillis) {

    static PodDraw of(int index, SplittableRandom random, List<String> nodes) {
      String node = random.nextInt(100) < 2 ? null : nodes.get(random.nextInt(nodes.size()));
      String phase = node == null ? "Pending" : random.nextInt(100) < 3 ? "Succeeded" : "Running";
      return new PodDraw(index, index % 1000, node, phase, POD_CPU[random.nextInt(POD_CPU.length)]);
    }
  }

  PodDraw draw(int index, SplittableRandom random) {
    return PodDraw.of(index, random, nodeNames);
  }

  /**
   * The JSON of {@link #pod}, from a template per application and phase with the per-pod values
   * put in: serializing 150,000 objects of this size one by one takes minutes on two busy cores.
   */
  private String podJson(PodDraw draw) {
    String template = podTemplates.computeIfAbsent(draw.app() + "/" + draw.phase(), key -> serialization.asJson(
        pod(new PodDraw(-1, draw.app(), draw.node() == null ? null : "@NODE@", draw.phase(), TEMPLATE_CPU))));
    return template.replace("@NAME@", podName(draw)).replace("@NODE@", String.valueOf(draw.node()))
        .replace("\"" + TEMPLATE_CPU + "m\"", "\"" + draw.cpuMillis() + "m\"")
        .replace("@IP@", "10.244.%d.%d".formatted(draw.index() / 250 % 256, draw.index() % 250))
        .replace("@CID@", "%064x".formatted(draw.index()));
  }

  private static String podName(PodDraw draw) {
    return draw.index() < 0 ? "@NAME@" : "app-%03d-%s-%06d".formatted(draw.app(), templateHash(draw.app()), draw.index());
  }

  private static String templateHash(int app) {
    return Integer.toHexString(0x5d9c7b6 + app);
  }

  /** A pod bound to {@code draw.node()} (none: pending), of one of 1,000 Deployments. */
  Pod pod(PodDraw draw) {
    int app = draw.app();
    String node = draw.node();
    String phase = draw.phase();
    int index = draw.index();
    String hash = templateHash(app);
    String image = catalog.get(app).reference();
    boolean template = index < 0;
    return new PodBuilder()
        .withNewMetadata().withName(podName(draw)).withGenerateName("app-%03d-%s-".formatted(app, hash))
        .withNamespace(namespace(app)).withLabels(labels(app))
        .addNewOwnerReference().withApiVersion("apps/v1").withKind("ReplicaSet").withName("app-%03d-%s".formatted(app, hash))
        .withUid("0c1d2e3f-4a5b-6c7d-8e9f-%012d".formatted(app)).withController(true).withBlockOwnerDeletion(true).endOwnerReference()
        .addNewManagedField().withManager("kube-controller-manager").withOperation("Update").withApiVersion("v1")
        .withTime("2026-11-20T08:00:00Z").withFieldsType("FieldsV1").withNewFieldsV1()
        .addToAdditionalProperties("f:metadata", Map.of("f:generateName", Map.of(), "f:labels", Map.of(".", Map.of(),
            "f:app", Map.of(), "f:pod-template-hash", Map.of())))
        .addToAdditionalProperties("f:spec", Map.of("f:containers", Map.of("k:{\"name\":\"app\"}", Map.of(".", Map.of(),
            "f:image", Map.of(), "f:imagePullPolicy", Map.of(), "f:name", Map.of(), "f:resources", Map.of()))))
        .endFieldsV1().endManagedField()
        .endMetadata()
        .withNewSpec().withNodeName(node).withServiceAccountName("default").withRestartPolicy("Always")
        .withTerminationGracePeriodSeconds(30L).withDnsPolicy("ClusterFirst").withSchedulerName("default-scheduler")
        .addNewVolume().withName("kube-api-access").withNewProjected().withDefaultMode(420).addNewSource()
        .withNewServiceAccountToken().withExpirationSeconds(3607L).withPath("token").endServiceAccountToken().endSource()
        .endProjected().endVolume()
        .addNewContainer().withName("app").withImage(image).withImagePullPolicy("IfNotPresent")
        .addNewPort().withContainerPort(8080).withProtocol("TCP").endPort()
        .addNewEnv().withName("JAVA_OPTS").withValue("-XX:MaxRAMPercentage=75").endEnv()
        .addNewEnv().withName("LOG_LEVEL").withValue("info").endEnv()
        .withNewResources().addToRequests("cpu", new Quantity(draw.cpuMillis() + "m"))
        .addToRequests("memory", new Quantity("256Mi")).addToLimits("memory", new Quantity("512Mi")).endResources()
        .addNewVolumeMount().withName("kube-api-access").withReadOnly(true)
        .withMountPath("/var/run/secrets/kubernetes.io/serviceaccount").endVolumeMount()
        .withNewReadinessProbe().withNewHttpGet().withPath("/ready").withNewPort(8080).endHttpGet().withPeriodSeconds(10).endReadinessProbe()
        .withTerminationMessagePath("/dev/termination-log").withTerminationMessagePolicy("File").endContainer()
        .addNewToleration().withKey("node.kubernetes.io/not-ready").withOperator("Exists").withEffect("NoExecute")
        .withTolerationSeconds(300L).endToleration()
        .addNewToleration().withKey("node.kubernetes.io/unreachable").withOperator("Exists").withEffect("NoExecute")
        .withTolerationSeconds(300L).endToleration()
        .endSpec()
        .withNewStatus().withPhase(phase).withQosClass("Burstable")
        .withHostIP(node == null ? null : "10.0.0.1").withPodIP(node == null ? null : template ? "@IP@" : "10.244.%d.%d".formatted(index / 250 % 256, index % 250))
        .withStartTime(node == null ? null : "2026-11-20T08:00:01Z")
        .addNewCondition().withType("PodScheduled").withStatus(node == null ? "False" : "True")
        .withLastTransitionTime("2026-11-20T08:00:00Z").endCondition()
        .addNewCondition().withType("Ready").withStatus("Running".equals(phase) ? "True" : "False")
        .withLastTransitionTime("2026-11-20T08:00:09Z").endCondition()
        .addNewContainerStatus().withName("app").withImage(image).withImageID(image + "@" + catalog.get(app).digest())
        .withReady("Running".equals(phase)).withRestartCount(0).withStarted("Running".equals(phase))
        .withContainerID(template ? "containerd://@CID@" : "containerd://%064x".formatted(index)).withNewState().withNewRunning()
        .withStartedAt("2026-11-20T08:00:05Z").endRunning().endState().endContainerStatus()
        .endStatus()
        .build();
  }

  private Node node(String name, Map<String, Long> largestImages) {
    List<ContainerImage> images = new ArrayList<>();
    largestImages.forEach((reference, size) -> images.add(new io.fabric8.kubernetes.api.model.ContainerImageBuilder()
        .withNames(reference + "@sha256:" + "0".repeat(64), reference).withSizeBytes(size).build()));
    return new NodeBuilder()
        .withNewMetadata().withName(name)
        .addToLabels("kubernetes.io/hostname", name).addToLabels("kubernetes.io/os", "linux").addToLabels("kubernetes.io/arch", "amd64")
        .addToLabels("node.kubernetes.io/instance-type", "m6i.2xlarge").addToLabels("topology.kubernetes.io/region", "eu-west-1")
        .addToLabels("topology.kubernetes.io/zone", "eu-west-1a")
        .addToAnnotations("node.alpha.kubernetes.io/ttl", "0").addToAnnotations("volumes.kubernetes.io/controller-managed-attach-detach", "true")
        .endMetadata()
        .withNewSpec().withProviderID("aws:///eu-west-1a/i-0%016x".formatted(name.hashCode())).withPodCIDR("10.244.0.0/24").endSpec()
        .withNewStatus()
        .addToCapacity("cpu", new Quantity("8")).addToCapacity("memory", new Quantity("32386544Ki"))
        .addToCapacity("pods", new Quantity("110")).addToCapacity("ephemeral-storage", new Quantity("104845292Ki"))
        .addToAllocatable("cpu", new Quantity("7910m")).addToAllocatable("memory", new Quantity("31369712Ki"))
        .addToAllocatable("pods", new Quantity("110")).addToAllocatable("ephemeral-storage", new Quantity("95551679124"))
        .addNewCondition().withType("MemoryPressure").withStatus("False").withReason("KubeletHasSufficientMemory")
        .withMessage("kubelet has sufficient memory available").endCondition()
        .addNewCondition().withType("DiskPressure").withStatus("False").withReason("KubeletHasNoDiskPressure")
        .withMessage("kubelet has no disk pressure").endCondition()
        .addNewCondition().withType("PIDPressure").withStatus("False").withReason("KubeletHasSufficientPID")
        .withMessage("kubelet has sufficient PID available").endCondition()
        .addNewCondition().withType("Ready").withStatus("True").withReason("KubeletReady")
        .withMessage("kubelet is posting ready status").endCondition()
        .addNewAddress().withType("InternalIP").withAddress("10.0.0.1").endAddress()
        .addNewAddress().withType("Hostname").withAddress(name).endAddress()
        .withNewNodeInfo().withKubeletVersion("v1.31.2").withContainerRuntimeVersion("containerd://1.7.22")
        .withKernelVersion("6.1.112").withOsImage("Amazon Linux 2023").withOperatingSystem("linux").withArchitecture("amd64")
        .withMachineID("ec2" + "0".repeat(29)).withSystemUUID("ec2" + "0".repeat(33)).withBootID("0".repeat(36))
        .withKubeProxyVersion("v1.31.2").endNodeInfo()
        .withImages(images)
        .endStatus()
        .build();
  }

  /** The prioritize request kube-scheduler sends a nodeCacheCapable extender for the benchmark's pod. */
  String prioritizeRequest(List<String> candidates) {
    Pod pod = pod(new PodDraw(3, 3, null, "Pending", 250));
    pod.setStatus(new io.fabric8.kubernetes.api.model.PodStatusBuilder().withPhase("Pending").withQosClass("Burstable").build());
    pod.getSpec().setInitContainers(List.of(new io.fabric8.kubernetes.api.model.ContainerBuilder().withName("migrate")
        .withImage(podImages().get(0).reference()).withImagePullPolicy("IfNotPresent").build()));
    pod.getSpec().getContainers().getFirst().setImage(podImages().get(1).reference());
    return "{\"Pod\":" + serialization.asJson(pod) + ",\"Nodes\":null,\"NodeNames\":" + serialization.asJson(candidates) + "}";
  }
}

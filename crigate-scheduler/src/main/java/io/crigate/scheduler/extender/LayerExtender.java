package io.crigate.scheduler.extender;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.NodeLoad;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The extender's verbs, free of HTTP. {@code prioritize} returns {@link LayerLocality} per candidate;
 * {@code filter} (opt-in) fails candidates that publish no layer inventory.
 *
 * <p>The candidates kube-scheduler sends are the nodes that passed its filters, which is the set the
 * score compares. An image whose layers the registry cannot tell is left out of the pod (its bytes
 * are unknown); a node without an inventory is scored as holding none of the pod's layers, since
 * that is the most it could have to pull. The candidates' loads (CPU and pod counts), which kube-scheduler does not
 * send, come from {@code loads}; the pod's own CPU request from the pod in the request. An image
 * whose registry is not on the allow-list is likewise left out, and said once per registry.
 */
final class LayerExtender {

  private static final Logger LOG = LoggerFactory.getLogger(LayerExtender.class);

  private final LayerIndex index;
  private final NodeLoads loads;
  private final ImageLayerSource images;
  private final RefusedRegistries refused = new RefusedRegistries();

  /**
   * @param loads each node's CPU load, which a {@link NodeLoadInformer} keeps current; the pods scored here
   *     count on their likely node until the informer shows where they went
   * @param images looks an image reference up, e.g. in a {@code RegistryClient} (caches)
   */
  LayerExtender(LayerIndex index, NodeLoads loads, ImageLayerSource images) {
    if (index.nodeTable() != loads.nodeTable()) {
      throw new IllegalArgumentException("the layer index and the loads must be built on one NodeTable");
    }
    this.index = index;
    this.loads = loads;
    this.images = images;
  }

  /**
   * Reads the candidates' loads and missing bytes into {@code buffers} and scores in them: the
   * answer's scores are the buffers' own array, valid until they serve another call.
   *
   * @param mayWait whether an image may be looked up in its registry; when not, an image whose
   *     layers are not known yet throws {@link WouldWait} before anything has changed
   */
  Priorities prioritize(ExtenderArgs args, CallBuffers buffers, boolean mayWait) {
    PodLayers pod = PodLayers.of(resolve(args, mayWait));
    List<NodeTable.Entry> candidates = entries(args.nodes().names(), buffers);
    loads.forgetExpired();
    if (args.pod().name() != null) {
      // kube-scheduler retries a pod it could not bind: its own earlier guess must not weigh on it
      loads.retract(args.podName());
    }
    List<NodeLoad> candidateLoads = buffers.loads;
    candidateLoads.clear();
    int[] numbers = buffers.numbers(candidates.size());
    for (int c = 0; c < candidates.size(); c++) { // one pass: 5,000 entries do not stay in the cache for a second
      NodeTable.Entry candidate = candidates.get(c);
      numbers[c] = candidate.number;
      candidateLoads.add(loads.of(candidate));
    }
    long[] missing = index.missingBytes(pod, numbers, buffers.missing(candidates.size()));
    long[] scores = LayerLocality.scores(missing, args.cpuMillis(), candidateLoads, buffers.scores);
    assumeLikelyNode(args, candidates, candidateLoads, scores);
    return new Priorities(candidates, scores);
  }

  /**
   * The candidates' entries: as the request's parse found them when the names are the call's own
   * ({@link CallBuffers#names}, NodeNames), else looked up (a NodeList's items, a caller's own list).
   */
  private List<NodeTable.Entry> entries(List<String> names, CallBuffers buffers) {
    if (names != buffers.names) {
      buffers.entries.clear();
      for (String name : names) {
        buffers.entries.add(index.nodeTable().resolve(name));
      }
    }
    return buffers.entries;
  }

  /**
   * Counts the pod on the node it most likely goes to until the informer shows its binding: the
   * best-scored candidate, and among those the least loaded, which kube-scheduler's resource scores
   * prefer. Where the guess is wrong the error lasts only until the binding is seen.
   */
  private void assumeLikelyNode(ExtenderArgs args, List<NodeTable.Entry> candidates, List<NodeLoad> candidateLoads, long[] scores) {
    if (args.pod().name() == null) {
      return;
    }
    int likely = -1;
    for (int i = 0; i < candidates.size(); i++) {
      if (likely < 0 || scores[i] > scores[likely] || (scores[i] == scores[likely]
          && candidateLoads.get(i).utilizationWith(args.cpuMillis()) < candidateLoads.get(likely).utilizationWith(args.cpuMillis()))) {
        likely = i;
      }
    }
    if (likely >= 0) {
      loads.assume(args.podName(), candidates.get(likely).string(), args.cpuMillis());
    }
  }

  FilterResult filter(ExtenderArgs args) {
    Set<String> kept = new HashSet<>();
    Map<String, String> failed = new LinkedHashMap<>();
    for (String node : args.nodes().names()) {
      if (index.publishes(node)) {
        kept.add(node);
      } else {
        failed.put(node, "node %s publishes no crigate layer inventory".formatted(node));
      }
    }
    return new FilterResult(args.nodes().retain(kept), failed);
  }

  private List<ImageLayers> resolve(ExtenderArgs args, boolean mayWait) {
    List<ImageLayers> resolved = new ArrayList<>();
    for (String image : new LinkedHashSet<>(args.images())) {
      try {
        resolved.add(mayWait ? images.layers(image) : images.layersIfKnown(image).orElseThrow(() -> new WouldWait(image)));
      } catch (WouldWait unknown) {
        throw unknown;
      } catch (CrigateException.PermissionDenied notAllowed) {
        refused.report(image, notAllowed);
      } catch (RuntimeException unknown) {
        LOG.warn("pod {}: no layers for image {}, scoring without it: {}", args.podName(), image, unknown.getMessage());
      }
    }
    return resolved;
  }

  /**
   * A call asked not to wait met an image whose layers only its registry can tell. Nothing has
   * changed: the caller runs the call again where it may wait. Carries no stack trace: it is flow,
   * not a failure.
   */
  static final class WouldWait extends RuntimeException {
    WouldWait(String image) {
      super("layers of " + image + " are not known without asking its registry", null, false, false);
    }
  }
}

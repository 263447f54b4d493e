package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.scheduler.ImageLocality;
import io.crigate.scheduler.LayerLocality;
import io.crigate.scheduler.PodLayers;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The image part of a node's score, on kube-scheduler's 0..100 plugin scale. */
sealed interface ImageScorer {

  String name();

  /**
   * @param pod the pod being placed, for scores that weigh its requests
   * @param cluster every node, for scores that count holders across the cluster
   * @param candidates the nodes that fit the pod, as kube-scheduler hands them to score plugins and extenders
   * @return one score per candidate, in order
   */
  long[] scores(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates);

  List<ImageScorer> ALL = List.of(new ResourcesOnly(), new UpstreamImageLocality(), new LayerAware());

  static ImageScorer named(String name) {
    return ALL.stream().filter(s -> s.name().equals(name)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("unknown scorer %s; known: %s"
            .formatted(name, ALL.stream().map(ImageScorer::name).toList())));
  }

  /** Baseline: no image score, placement by resources alone (random among ties). */
  record ResourcesOnly() implements ImageScorer {
    @Override
    public String name() {
      return "resources-only";
    }

    @Override
    public long[] scores(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates) {
      return new long[candidates.size()];
    }
  }

  /** Upstream ImageLocality on what node status shows: whole images, 50 largest per node. */
  record UpstreamImageLocality() implements ImageScorer {
    @Override
    public String name() {
      return "image-locality";
    }

    @Override
    public long[] scores(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates) {
      Map<String, Integer> nodesWithImage = new HashMap<>();
      for (SimNode node : cluster) {
        node.imageStatus().keySet().forEach(name -> nodesWithImage.merge(name, 1, Integer::sum));
      }
      List<String> podImages = List.of(image.reference());
      long[] scores = new long[candidates.size()];
      for (int i = 0; i < scores.length; i++) {
        scores[i] = ImageLocality.score(podImages, candidates.get(i).imageStatus(), nodesWithImage, cluster.size());
      }
      return scores;
    }
  }

  /**
   * LayerLocality as the extender returns it (0..10), scaled by kube-scheduler's 100/10 at weight 1,
   * with each candidate's requested CPU and pod count as the extender's load informer sums them.
   */
  record LayerAware() implements ImageScorer {
    @Override
    public String name() {
      return "layer-locality";
    }

    @Override
    public long[] scores(PodArrival pod, ImageLayers image, List<SimNode> cluster, List<SimNode> candidates) {
      PodLayers layers = PodLayers.of(List.of(image));
      long[] scores = LayerLocality.scores(
          candidates.stream().mapToLong(node -> LayerLocality.missingBytes(layers, node)).toArray(),
          pod.cpuMillis(), candidates.stream().map(SimNode::nodeLoad).toList());
      for (int i = 0; i < scores.length; i++) {
        scores[i] *= ImageLocality.MAX_NODE_SCORE / LayerLocality.MAX_EXTENDER_PRIORITY;
      }
      return scores;
    }
  }
}

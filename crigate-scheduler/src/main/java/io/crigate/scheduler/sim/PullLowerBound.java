package io.crigate.scheduler.sim;

import io.crigate.images.ImageLayers;
import io.crigate.images.Layer;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;

/**
 * Lower bounds on the bytes any placement pulls for a trace, whatever it scores, that starts every
 * pod of the trace at its arrival for its full run time (a placement that leaves pods unscheduled
 * can pull less).
 *
 * <ul>
 *   <li>{@code eachLayerOnce}: every distinct layer the trace uses, pulled once somewhere.
 *   <li>{@code concurrency}: a layer is on every node that runs a pod using it, and each of those
 *       nodes pulled it at least once. While pods using layer {@code L} run together, their requests
 *       need at least {@code ceil(sum of CPU / node CPU)} nodes, and as many for memory; so
 *       {@code L} is pulled at least {@code max over time} of that many times (at most the node
 *       count). Image GC can only add pulls (a node evicts and pulls again), never remove one, so
 *       the bound holds at any disk size.
 * </ul>
 *
 * @param eachLayerOnce bytes of the distinct layers the trace uses
 * @param concurrency the sum over those layers of size times the nodes their concurrent pods need
 */
public record PullLowerBound(long eachLayerOnce, long concurrency) {

  private record Event(double at, PodArrival pod, boolean starts) {}

  public static PullLowerBound of(List<PodArrival> trace, ImageCatalog catalog, NodeShape shape, int nodes) {
    Map<Layer, List<PodArrival>> podsByLayer = new HashMap<>();
    for (PodArrival pod : trace) {
      ImageLayers image = catalog.image(pod.image());
      for (Layer layer : new LinkedHashSet<>(image.layers())) {
        podsByLayer.computeIfAbsent(layer, l -> new ArrayList<>()).add(pod);
      }
    }
    long once = 0;
    long concurrency = 0;
    for (Map.Entry<Layer, List<PodArrival>> entry : podsByLayer.entrySet()) {
      once += entry.getKey().size();
      concurrency += entry.getKey().size() * Math.min(nodes, nodesNeeded(entry.getValue(), shape));
    }
    return new PullLowerBound(once, concurrency);
  }

  /** The most nodes the pods' requests need at any instant; a pod ending at t no longer counts at t. */
  static int nodesNeeded(List<PodArrival> pods, NodeShape shape) {
    List<Event> events = new ArrayList<>();
    for (PodArrival pod : pods) {
      events.add(new Event(pod.atSeconds(), pod, true));
      events.add(new Event(pod.atSeconds() + pod.durationSeconds(), pod, false));
    }
    // at equal times the end goes first, as the simulator retires pods ending at an arrival
    events.sort(Comparator.comparingDouble(Event::at).thenComparing(Event::starts));
    long cpu = 0;
    long memory = 0;
    int most = 0;
    for (Event event : events) {
      int sign = event.starts() ? 1 : -1;
      cpu += sign * event.pod().cpuMillis();
      memory += sign * event.pod().memoryMib();
      most = Math.max(most, (int) Math.max(Math.ceilDiv(cpu, shape.cpuMillis()), Math.ceilDiv(memory, shape.memoryMib())));
    }
    return most;
  }
}

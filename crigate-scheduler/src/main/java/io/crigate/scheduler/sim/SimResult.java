package io.crigate.scheduler.sim;

/**
 * What one scorer achieved on one trace.
 *
 * @param pulls pod starts that had to pull at least one layer
 * @param meanStartSeconds mean over started pods of (bytes pulled / bandwidth)
 * @param podsPerNodeCv coefficient of variation of running pods per node, averaged over arrivals
 * @param cpuPerNodeCv the same for CPU requested per node
 * @param imageNodePairs distinct pairs of an image and a node that started a pod of it: how widely
 *     the images spread; each pair is a pull unless the node held the image's layers already
 */
public record SimResult(String scorer, long seed, int pods, int unschedulable, long bytesPulled, int pulls,
    double meanStartSeconds, double p95StartSeconds, double podsPerNodeCv,
    double cpuPerNodeCv, int imageNodePairs) {}

package io.crigate.scheduler.sim;

/**
 * One pod of a trace.
 *
 * @param atSeconds arrival time since the trace began
 * @param image the pod's (single container) image, a catalog reference
 * @param durationSeconds how long it runs once started
 */
public record PodArrival(double atSeconds, String pod, String image, int cpuMillis, long memoryMib,
    double durationSeconds) {}

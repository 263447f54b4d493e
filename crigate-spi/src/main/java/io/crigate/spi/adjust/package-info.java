/**
 * The adjustment engine's contract: what a resource policy, a runtime hook or an NRI plugin sees of a
 * pod and a container, what it may change, and how the changes of several plugins are combined.
 *
 * <p>Nothing here depends on a transport. Three doors translate into and out of these records and
 * reuse {@link io.crigate.spi.adjust.PluginChain} unchanged: the CRI proxy path in crigate-core
 * (before forwarding), the NRI plugin in crigate-nri (NRI events in, NRI adjustments out) and the
 * standalone reconciler (runtime events in, UpdateContainerResources out). See docs/adjustment-engine.md.
 */
package io.crigate.spi.adjust;

package io.crigate.core.state;

import java.time.Instant;

/**
 * Who owns a container: always the backend that owns its sandbox.
 *
 * @param id the container id the backend chose
 * @param sandboxId the pod sandbox the container belongs to
 * @param backend the configured name of the owning backend
 * @param name the container's name within its pod
 * @param createdAt when crigate recorded the container, or when the backend says it created it on adoption
 */
public record ContainerRecord(String id, String sandboxId, String backend, String name, Instant createdAt) {}

package io.crigate.core.state;

import java.time.Instant;

/**
 * Who owns a pod sandbox, plus enough about the pod to find it in logs and dumps without asking the
 * backend.
 *
 * @param id the sandbox id the backend chose
 * @param backend the configured name of the owning backend
 * @param handler the RuntimeClass handler as the kubelet named it, normalised ({@code default} for empty)
 * @param podNamespace the pod's namespace
 * @param podName the pod's name
 * @param podUid the pod's uid
 * @param createdAt when crigate recorded the sandbox, or when the backend says it created it on adoption
 */
public record SandboxRecord(
    String id, String backend, String handler, String podNamespace, String podName, String podUid, Instant createdAt) {}

package io.crigate.core;

import io.crigate.api.cri.v1.Container;
import io.crigate.api.cri.v1.PodSandbox;
import io.crigate.core.state.ContainerRecord;
import io.crigate.core.state.SandboxRecord;
import java.time.Instant;
import java.util.Optional;

/**
 * Turns what a backend reports into ownership records, for objects crigate finds rather than
 * creates. Metadata crigate recorded itself wins over what it can reconstruct.
 */
final class Adoption {

  private final BackendRoutes routes;

  Adoption(BackendRoutes routes) {
    this.routes = routes;
  }

  SandboxRecord sandbox(String backend, PodSandbox reported, Optional<SandboxRecord> known) {
    String handler = known.filter(record -> record.backend().equals(backend))
        .map(SandboxRecord::handler)
        .orElseGet(() -> routes.kubeletHandler(backend, reported.getRuntimeHandler()));
    return new SandboxRecord(reported.getId(), backend, handler, reported.getMetadata().getNamespace(),
        reported.getMetadata().getName(), reported.getMetadata().getUid(), instant(reported.getCreatedAt()));
  }

  ContainerRecord container(String backend, Container reported, Optional<ContainerRecord> known) {
    return known.filter(record -> record.backend().equals(backend) && record.sandboxId().equals(reported.getPodSandboxId()))
        .orElseGet(() -> new ContainerRecord(reported.getId(), reported.getPodSandboxId(), backend,
            reported.getMetadata().getName(), instant(reported.getCreatedAt())));
  }

  /** CRI timestamps are nanoseconds since the epoch. */
  private static Instant instant(long epochNanos) {
    return Instant.ofEpochSecond(0, epochNanos);
  }
}

package io.crigate.backend.slurm;

import io.grpc.Context;
import io.grpc.Deadline;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * How long one Slurm command may run: two minutes, or less when the CRI call it serves has an
 * earlier deadline (grpc's Context carries the kubelet's deadline into the backend). A hung sbatch
 * would otherwise hold its container's lock forever, and every ContainerStatus would queue behind it.
 */
final class CommandDeadline {

  static final Duration DEFAULT = Duration.ofMinutes(2);

  private CommandDeadline() {}

  static Duration remaining() {
    Deadline deadline = Context.current().getDeadline();
    if (deadline == null) {
      return DEFAULT;
    }
    return Duration.ofMillis(Math.clamp(deadline.timeRemaining(TimeUnit.MILLISECONDS), 0, DEFAULT.toMillis()));
  }
}

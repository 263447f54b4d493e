package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ContainerEventResponse;
import io.crigate.api.cri.v1.GetEventsRequest;
import java.time.Duration;
import java.time.Instant;
import java.util.Iterator;
import picocli.CommandLine.Command;

@Command(name = "events", description = "Stream container events (GetContainerEvents) until interrupted.")
final class EventsCommand extends CriAction {

  /** Events stream for as long as the user watches. */
  @Override
  Duration defaultDeadline() {
    return Duration.ofDays(365);
  }

  @Override
  int run(CriSession cri) {
    Iterator<ContainerEventResponse> events = cri.runtime().getContainerEvents(GetEventsRequest.getDefaultInstance());
    while (events.hasNext()) {
      ContainerEventResponse event = events.next();
      out().printf("%s %s container=%s pod=%s%n", Instant.EPOCH.plusNanos(event.getCreatedAt()),
          event.getContainerEventType(), event.getContainerId(),
          event.hasPodSandboxStatus() ? event.getPodSandboxStatus().getId() : "");
      out().flush();
    }
    return 0;
  }
}

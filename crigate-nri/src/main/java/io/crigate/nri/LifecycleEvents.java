package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.spi.adjust.LifecycleEvent;
import java.util.EnumSet;
import java.util.Set;

/** The engine's lifecycle events and NRI's, one for one. */
final class LifecycleEvents {

  private LifecycleEvents() {
  }

  static Event toNri(LifecycleEvent e) {
    return switch (e) {
      case RUN_POD_SANDBOX -> Event.RUN_POD_SANDBOX;
      case STOP_POD_SANDBOX -> Event.STOP_POD_SANDBOX;
      case REMOVE_POD_SANDBOX -> Event.REMOVE_POD_SANDBOX;
      case CREATE_CONTAINER -> Event.CREATE_CONTAINER;
      case POST_CREATE_CONTAINER -> Event.POST_CREATE_CONTAINER;
      case START_CONTAINER -> Event.START_CONTAINER;
      case POST_START_CONTAINER -> Event.POST_START_CONTAINER;
      case UPDATE_CONTAINER_RESOURCES -> Event.UPDATE_CONTAINER;
      case POST_UPDATE_CONTAINER_RESOURCES -> Event.POST_UPDATE_CONTAINER;
      case STOP_CONTAINER -> Event.STOP_CONTAINER;
      case REMOVE_CONTAINER -> Event.REMOVE_CONTAINER;
      case UPDATE_POD_SANDBOX_RESOURCES -> Event.UPDATE_POD_SANDBOX;
      case POST_UPDATE_POD_SANDBOX_RESOURCES -> Event.POST_UPDATE_POD_SANDBOX;
    };
  }

  static Set<Event> toNri(Set<LifecycleEvent> events) {
    Set<Event> out = EnumSet.noneOf(Event.class);
    events.forEach(e -> out.add(toNri(e)));
    return out;
  }
}

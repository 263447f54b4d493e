package io.crigate.nri;

import io.crigate.api.nri.v1alpha1.Event;
import java.util.EnumSet;
import java.util.Set;

/** NRI's event subscription bitmask: event {@code e} is bit {@code 1 << (e - 1)}. */
final class Events {

  private Events() {
  }

  static int mask(Set<Event> events) {
    int mask = 0;
    for (Event e : events) {
      if (e.getNumber() > 0 && e != Event.LAST) {
        mask |= 1 << (e.getNumber() - 1);
      }
    }
    return mask;
  }

  static boolean subscribed(int mask, Event event) {
    return (mask & (1 << (event.getNumber() - 1))) != 0;
  }

  static Set<Event> of(int mask) {
    Set<Event> events = EnumSet.noneOf(Event.class);
    for (Event e : Event.values()) {
      if (e != Event.UNRECOGNIZED && e.getNumber() > 0 && e != Event.LAST && subscribed(mask, e)) {
        events.add(e);
      }
    }
    return events;
  }
}

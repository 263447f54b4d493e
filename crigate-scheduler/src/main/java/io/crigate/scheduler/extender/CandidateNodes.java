package io.crigate.scheduler.extender;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Set;

/**
 * The nodes kube-scheduler asks about, in the form it chose: full {@code v1.NodeList} objects, or,
 * when the extender is {@code nodeCacheCapable}, names only. A filter answer uses the same form.
 */
sealed interface CandidateNodes {

  List<String> names();

  /** This candidate set restricted to {@code kept}, in the same form. */
  CandidateNodes retain(Set<String> kept);

  /** The names as parsed, not copied: the list is the call's buffer ({@link CallBuffers#names}), valid until it answers. */
  record Names(List<String> names) implements CandidateNodes {

    @Override
    public CandidateNodes retain(Set<String> kept) {
      return new Names(names.stream().filter(kept::contains).toList());
    }
  }

  /** The NodeList as sent, so that a filter answer echoes every field of the kept nodes unchanged. */
  record NodeList(ObjectNode list, List<String> names) implements CandidateNodes {
    public NodeList {
      names = List.copyOf(names);
    }

    @Override
    public CandidateNodes retain(Set<String> kept) {
      ObjectNode copy = list.deepCopy();
      var items = copy.putArray("items");
      List<String> keptNames = new java.util.ArrayList<>();
      for (JsonNode item : list.path("items")) {
        String name = item.path("metadata").path("name").asText();
        if (kept.contains(name)) {
          items.add(item);
          keptNames.add(name);
        }
      }
      return new NodeList(copy, keptNames);
    }
  }
}

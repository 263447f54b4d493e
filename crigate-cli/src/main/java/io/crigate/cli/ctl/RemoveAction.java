package io.crigate.cli.ctl;

import io.crigate.spi.CrigateException.FailedPrecondition;
import io.crigate.spi.CrigateException.InvalidArgument;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Removal of containers or pods: an active one (running, ready) is refused unless {@code -f}, which
 * stops it first, so a typo cannot take down a live workload.
 *
 * @param <T> the listed object, to read its state from
 */
abstract class RemoveAction<T> extends CriAction {

  @Parameters(arity = "0..*", paramLabel = "ID", description = "Ids or unique prefixes.")
  List<String> prefixes = List.of();

  @Option(names = {"-f", "--force"}, description = "Stop active ones first.")
  boolean force;

  @Option(names = {"-a", "--all"}, description = "Remove all of them.")
  boolean all;

  /** "container" or "pod", for messages. */
  abstract String kind();

  abstract Map<String, T> list(CriSession cri);

  abstract boolean isActive(T object);

  abstract void stop(CriSession cri, String id);

  /** Removes and returns the line to print. */
  abstract String remove(CriSession cri, String id);

  @Override
  final int run(CriSession cri) {
    Map<String, T> known = list(cri);
    List<String> ids = all ? List.copyOf(known.keySet()) : resolve(known);
    for (String id : ids) {
      if (isActive(known.get(id))) {
        if (!force) {
          throw new FailedPrecondition(
              "%s %s is still active; stop it first or use -f".formatted(kind(), id));
        }
        stop(cri, id);
      }
      out().println(remove(cri, id));
    }
    return 0;
  }

  private List<String> resolve(Map<String, T> known) {
    if (prefixes.isEmpty()) {
      throw new InvalidArgument("name at least one %s, or use -a".formatted(kind()));
    }
    return prefixes.stream().map(p -> IdPrefix.resolve(kind(), p, known.keySet())).toList();
  }
}

package io.crigate.cli;

import io.crigate.backend.cri.RemoteCriBackendFactory;
import io.crigate.backend.slurm.SlurmBackendFactory;
import io.crigate.spi.BackendFactory;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/** Every backend type crigate can run, keyed by the {@code type:} that selects it. No scanning: add a line here. */
final class Backends {

  private Backends() {}

  static Map<String, BackendFactory> factories() {
    List<BackendFactory> all = List.of(
        new RemoteCriBackendFactory(),
        new SlurmBackendFactory());
    return all.stream().collect(Collectors.toUnmodifiableMap(BackendFactory::type, Function.identity()));
  }
}

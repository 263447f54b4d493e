package io.crigate.backend.slurm;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.spi.Backend;
import io.crigate.spi.DurableStore;
import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneId;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Test fixture: crigate's Slurm backend over the real local Slurm commands, counting each command
 * it runs by name (squeue, sbatch, ...) and the poller's completed polls. It lives in the backend's
 * package only to reach its package-private command runner; the interLink plugin still sees a
 * plain {@link Backend}.
 */
public final class CountedSlurm {

  private final Map<String, AtomicLong> commands = new ConcurrentHashMap<>();
  private final SlurmBackend backend;

  public CountedSlurm(String name, JsonNode settings, Path stateDir, DurableStore store) throws IOException {
    Files.createDirectories(stateDir);
    SlurmSettings parsed = SlurmSettings.parse(name, settings);
    LocalCommandRunner local = new LocalCommandRunner();
    CommandRunner counting = new CommandRunner() {
      @Override
      public CommandResult run(List<String> argv, byte[] stdin) {
        commands.computeIfAbsent(argv.getFirst(), k -> new AtomicLong()).incrementAndGet();
        return local.run(argv, stdin);
      }

      @Override
      public Interactive start(List<String> argv, boolean tty, TerminalSize size) {
        return local.start(argv, tty, size);
      }

      @Override
      public void close() {
        local.close();
      }
    };
    this.backend = new SlurmBackend(name, parsed, new CliSlurmClient(counting, ZoneId.systemDefault()),
        login -> {
          throw new UnsupportedOperationException("container logins are not used here");
        },
        new RecordStore(store), LoginVault.in(stateDir), Clock.systemUTC());
  }

  public Backend backend() {
    return backend;
  }

  /** How many times {@code command} (e.g. "squeue") has run so far. */
  public long count(String command) {
    AtomicLong n = commands.get(command);
    return n == null ? 0 : n.get();
  }

  public long polls() {
    return backend.poller().polls();
  }
}

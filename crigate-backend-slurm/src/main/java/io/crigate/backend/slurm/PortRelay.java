package io.crigate.backend.slurm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * One relay step in a job ({@code srun --overlap}), from its start to its end. bash on the node
 * waits for one byte on its stdin before it connects to the port on the node's loopback, so a step
 * can be started before the connection that will use it ({@link StandbyRelays}), and then joins the
 * connection to srun's stdin and stdout, which reach crigate the way an interactive exec's do.
 */
final class PortRelay {

  /**
   * Runs with the port as $1. It says {@code ready}, then waits for crigate's go byte (end of input
   * instead: the step was not needed, and exits). Each direction copies in a job of its own (set -m
   * gives each its own process group, so ending one ends its cat too) and says on fd 5, a pipe, when
   * it is done. When the pod's side closes the relay ends at once; when the client's side ends first
   * the pod has a second to answer, as containerd's forwarder allows (bash cannot half-close the
   * socket to tell it). Both background copiers are killed before the exit, or their pipes would keep
   * the step open. Not {@code wait -n}: a copier that ends before bash reaches it is missed, and the
   * relay hangs. {@code read -n 1} takes exactly the go byte: bash reads a pipe byte by byte.
   */
  static final String SCRIPT = """
      set -m
      echo ready >&2
      read -r -n 1 _ || exit 0
      exec 3<>"/dev/tcp/127.0.0.1/$1" || exit 3
      exec 5<> <(:)
      echo connected >&2
      exec 2>/dev/null
      { cat <&3; echo pod >&5; } & from_pod=$!
      { cat >&3; echo client >&5; } & to_pod=$!
      read -r first <&5
      if [ "$first" = client ]; then read -r -t 1 _ <&5; fi
      kill -- -"$from_pod" -"$to_pod"
      exit 0
      """;
  static final String READY = "ready";
  static final String CONNECTED = "connected";
  private static final byte GO = '\n';
  /** How long a dismissed step may take to see its end of input before it is killed. */
  private static final Duration DISMISS_GRACE = Duration.ofSeconds(5);

  private final Interactive step;

  private PortRelay(Interactive step) {
    this.step = step;
  }

  /** Starts the step; it waits for {@link #connect}. The job must have a launcher. */
  static PortRelay start(RunningJob job, int port) {
    // --norc: srun passes on SSH_CLIENT from a login over SSH, and bash then reads the user's
    // ~/.bashrc, whose output would go into the forwarded connection (and whose module loads and
    // pyenv inits would delay every one)
    List<String> argv = List.of("srun", "--overlap", "--jobid=" + job.jobId(), "--ntasks=1", "--quiet", "--",
        "bash", "--norc", "-c", SCRIPT, "crigate-port-relay", Integer.toString(port));
    return new PortRelay(job.launcher().start(argv, false, SlurmStreams.DEFAULT_SIZE));
  }

  /**
   * Tells the step to connect and waits until it has.
   *
   * @return null once connected; otherwise why not, from what the step and srun said
   * @throws InterruptedException when the client went away meanwhile (the step is killed)
   */
  String connect() throws InterruptedException {
    try {
      step.stdin().write(GO);
      step.stdin().flush();
    } catch (IOException e) {
      step.kill();
      return "the relay ended before it was told to connect: " + e.getMessage();
    }
    List<String> said = new ArrayList<>();
    try {
      BufferedReader stderr = new BufferedReader(new InputStreamReader(step.stderr(), StandardCharsets.UTF_8));
      for (String line; (line = stderr.readLine()) != null; ) {
        if (line.equals(CONNECTED)) {
          Thread.ofVirtual().name("portforward-relay-stderr").start(() -> drain(stderr));
          return null;
        }
        if (!line.equals(READY)) {
          said.add(line.strip());
        }
      }
      int exit = step.waitFor();
      // The relay's own words say why (connection refused); srun's "task 0: Exited with exit code 3"
      // may come before or after them, as the two streams interleave.
      String why = said.reversed().stream().filter(line -> !line.startsWith("srun: ")).findFirst()
          .orElse(said.isEmpty() ? "the relay exited " + exit : said.getLast());
      return why.replaceFirst("^crigate-port-relay: (line \\d+: )?", "");
    } catch (IOException e) {
      step.kill();
      return "the relay's output failed: " + e.getMessage();
    } catch (InterruptedException e) {
      step.kill();
      throw e;
    }
  }

  /**
   * Copies both ways until the pod's side ends. A client that leaves ends its input, which ends the
   * relay's stdin and so the relay within its second of grace: reading srun's output is not
   * interruptible.
   */
  void join(InputStream fromClient, OutputStream toClient) {
    Thread input = Thread.ofVirtual().name("portforward-in")
        .start(() -> SlurmStreams.pipe(fromClient, step.stdin(), true, () -> {}));
    try {
      step.stdout().transferTo(toClient);
      step.waitFor();
    } catch (IOException e) {
      step.kill(); // the client is gone, or srun's output broke: the step ends either way
    } catch (InterruptedException e) {
      step.kill();
      Thread.currentThread().interrupt();
    } finally {
      input.interrupt();
    }
  }

  /** Ends a step that was never told to connect: its end of input makes it exit, else it is killed. */
  void dismiss() {
    Thread.ofVirtual().name("portforward-dismiss").start(() -> {
      try {
        step.stdin().close();
      } catch (IOException e) {
        // already gone
      }
      Thread waiting = Thread.ofVirtual().start(() -> {
        try {
          step.waitFor();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      });
      try {
        if (!waiting.join(DISMISS_GRACE)) {
          step.kill();
        }
      } catch (InterruptedException e) {
        step.kill();
      }
    });
  }

  private static void drain(BufferedReader stderr) {
    try {
      while (stderr.readLine() != null) {
        // srun's own complaints after the connection is up; the connection's end reports the outcome
      }
    } catch (IOException e) {
      // the relay ended
    }
  }
}

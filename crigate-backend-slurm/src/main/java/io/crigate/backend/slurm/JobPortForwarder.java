package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.PortForwardRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.PortForwarder;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * PortForward into a pod's Slurm jobs. A job's ports are on its compute node, which crigate's host
 * need not reach, so each forwarded connection is a relay step in the job ({@code srun --overlap}):
 * bash connects to the port on the node's loopback and joins the connection to srun's stdin and
 * stdout, which reach crigate the way an interactive exec's do. It says {@code connected} on stderr
 * first, so the client's bytes go only to a relay whose connection is up, and a pod of several jobs
 * is tried job by job until one accepts.
 */
final class JobPortForwarder implements PortForwarder {

  /**
   * Runs with the port as $1. Each direction copies in a job of its own (set -m gives each its own
   * process group, so ending one ends its cat too) and says on fd 5, a pipe, when it is done. When
   * the pod's side closes the relay ends at once; when the client's side ends first the pod has a
   * second to answer, as containerd's forwarder allows (bash cannot half-close the socket to tell
   * it). Both background copiers are killed before the exit, or their pipes would keep the step
   * open. Not {@code wait -n}: a copier that ends before bash reaches it is missed, and the relay
   * hangs.
   */
  static final String RELAY = """
      set -m
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
  static final String CONNECTED = "connected";

  private final Function<String, List<RunningJob>> podJobs;

  /** @param podJobs the running jobs of a pod, oldest first (NotFound for an unknown pod) */
  JobPortForwarder(Function<String, List<RunningJob>> podJobs) {
    this.podJobs = podJobs;
  }

  /** What can be checked before a URL is handed out: a running job, reachable with srun. */
  void check(PortForwardRequest request) {
    List<RunningJob> jobs = podJobs.apply(request.getPodSandboxId());
    if (jobs.isEmpty()) {
      throw new CrigateException.FailedPrecondition("pod %s has no running container whose job a port could be "
          .formatted(request.getPodSandboxId()) + "forwarded into");
    }
    if (jobs.stream().allMatch(job -> job.launcher() == null)) {
      throw new CrigateException.Unimplemented(("PortForward into slurm jobs runs srun, on crigate's host (transport "
          + "local) or a login node (transport ssh, or a container's own cluster login); pod %s's jobs are reached "
          + "through slurmrestd").formatted(request.getPodSandboxId()));
    }
  }

  @Override
  public void forward(String podSandboxId, int port, InputStream fromClient, OutputStream toClient) {
    List<String> refusals = new ArrayList<>();
    for (RunningJob job : podJobs.apply(podSandboxId)) {
      if (job.launcher() == null) {
        refusals.add("container %s: its job is reached through slurmrestd, which cannot run a relay".formatted(job.containerId()));
        continue;
      }
      Interactive relay = job.launcher().start(relayCommand(job, port), false, SlurmStreams.DEFAULT_SIZE);
      String refused = awaitConnected(relay);
      if (refused == null) {
        join(relay, fromClient, toClient);
        return;
      }
      refusals.add("container %s (job %d): %s".formatted(job.containerId(), job.jobId(), refused));
    }
    if (refusals.isEmpty()) {
      throw new CrigateException.FailedPrecondition("pod %s has no running container".formatted(podSandboxId));
    }
    throw new CrigateException.Unavailable("nothing accepted a connection to port %d: %s"
        .formatted(port, String.join("; ", refusals)));
  }

  private static List<String> relayCommand(RunningJob job, int port) {
    // --norc: srun passes on SSH_CLIENT from a login over SSH, and bash then reads the user's
    // ~/.bashrc, whose output would go into the forwarded connection (and whose module loads and
    // pyenv inits would delay every one)
    return List.of("srun", "--overlap", "--jobid=" + job.jobId(), "--ntasks=1", "--quiet", "--",
        "bash", "--norc", "-c", RELAY, "crigate-port-relay", Integer.toString(port));
  }

  /** Null once the relay is connected; otherwise why it is not, from what it and srun said. */
  private static String awaitConnected(Interactive relay) {
    List<String> said = new ArrayList<>();
    try {
      BufferedReader stderr = new BufferedReader(new InputStreamReader(relay.stderr(), StandardCharsets.UTF_8));
      for (String line; (line = stderr.readLine()) != null; ) {
        if (line.equals(CONNECTED)) {
          Thread.ofVirtual().name("portforward-relay-stderr").start(() -> drain(stderr));
          return null;
        }
        said.add(line.strip());
      }
      int exit = relay.waitFor();
      // The relay's own words say why (connection refused); srun's "task 0: Exited with exit code 3"
      // may come before or after them, as the two streams interleave.
      String why = said.reversed().stream().filter(line -> !line.startsWith("srun: ")).findFirst()
          .orElse(said.isEmpty() ? "the relay exited " + exit : said.getLast());
      return why.replaceFirst("^crigate-port-relay: (line \\d+: )?", "");
    } catch (IOException e) {
      relay.kill();
      return "the relay's output failed: " + e.getMessage();
    } catch (InterruptedException e) {
      relay.kill();
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("port forward ended: the client went away");
    }
  }

  /**
   * Copies both ways until the pod's side ends. A client that leaves ends its input, which ends the
   * relay's stdin and so the relay within its second of grace: reading srun's output is not
   * interruptible.
   */
  private static void join(Interactive relay, InputStream fromClient, OutputStream toClient) {
    Thread input = Thread.ofVirtual().name("portforward-in")
        .start(() -> SlurmStreams.pipe(fromClient, relay.stdin(), true, () -> {}));
    try {
      relay.stdout().transferTo(toClient);
      relay.waitFor();
    } catch (IOException e) {
      relay.kill(); // the client is gone, or srun's output broke: the step ends either way
    } catch (InterruptedException e) {
      relay.kill();
      Thread.currentThread().interrupt();
    } finally {
      input.interrupt();
    }
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

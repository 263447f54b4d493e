package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.AttachRequest;
import io.crigate.api.cri.v1.ExecRequest;
import io.crigate.spi.CrigateException;
import io.crigate.spi.StreamIo;
import io.crigate.spi.StreamingRuntime;
import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;

/**
 * Exec and Attach for Slurm jobs, run by crigate's streaming server. Exec is {@code srun --overlap
 * --jobid=<job> [--pty]} into the job's allocation and image, as ExecSync, but wired to the client
 * and with a terminal when asked; the exit code is srun's, which is the command's. Attach follows
 * the job's output files: a batch job has no stdin to attach to.
 */
final class SlurmStreams implements StreamingRuntime {

  /** Until the client's first resize arrives; kubectl sends its size right after connecting. */
  static final TerminalSize DEFAULT_SIZE = new TerminalSize(80, 24);

  private final Function<String, RunningJob> jobs;

  /**
   * @param jobs the running job of a container id (FailedPrecondition when it is not running), with
   *     what starts srun where its cluster is reached
   */
  SlurmStreams(Function<String, RunningJob> jobs) {
    this.jobs = jobs;
  }

  /** Checks, when the URL is requested, what can be checked before the client connects. */
  void checkExec(ExecRequest request) {
    RunningJob job = jobs.apply(request.getContainerId());
    if (job.launcher() == null) {
      throw new CrigateException.Unimplemented(("interactive exec into slurm jobs needs srun, on crigate's host "
          + "(transport local) or a login node (transport ssh, or the container's own cluster login); container %s's "
          + "job is reached through slurmrestd: use ExecSync (crigate ctl exec without -i/-t)").formatted(job.containerId()));
    }
  }

  void checkAttach(AttachRequest request) {
    RunningJob job = jobs.apply(request.getContainerId());
    if (request.getStdin()) {
      throw new CrigateException.FailedPrecondition(("container %s is slurm batch job %d, which has no stdin: "
          + "attach without stdin (kubectl attach without -i) to follow its output").formatted(job.containerId(), job.jobId()));
    }
  }

  @Override
  public int exec(ExecRequest request, StreamIo io) {
    checkExec(request);
    RunningJob job = jobs.apply(request.getContainerId());
    List<String> argv = new ArrayList<>(List.of("srun", "--overlap", "--jobid=" + job.jobId(), "--ntasks=1", "--quiet"));
    if (io.tty()) {
      argv.add("--pty");
    }
    argv.add("--");
    argv.addAll(job.inImage().apply(request.getCmdList()));
    // srun --pty accepts slurmstepd's terminal connection after it starts, and a SIGWINCH during
    // that accept() makes it give up on window sizes for good ("pty: accept failure: Interrupted
    // system call"). So the terminal starts at the latest size known, and later sizes are applied
    // only once the command's output has begun, by when the step (and that connection) is up.
    AtomicReference<TerminalSize> latest = new AtomicReference<>(DEFAULT_SIZE);
    AtomicReference<Interactive> resizable = new AtomicReference<>();
    io.onResize(size -> {
      latest.set(size);
      Interactive running = resizable.get();
      if (running != null) {
        running.resize(size);
      }
    });
    TerminalSize startSize = latest.get();
    Interactive command = job.launcher().start(argv, io.tty(), startSize);
    Runnable outputBegan = () -> {
      resizable.set(command);
      TerminalSize now = latest.get();
      if (!now.equals(startSize)) {
        command.resize(now); // one that arrived before: applied now, as the client expects
      }
    };
    // On a terminal the end of the client's stdin is not passed on: closing the pty's input would
    // hang up the terminal and kill the command (kubectl exec -t without -i sends no stdin at all).
    Thread input = Thread.ofVirtual().name("exec-stdin").start(() -> pipe(io.stdin(), command.stdin(), !io.tty(), () -> {}));
    Thread output = Thread.ofVirtual().name("exec-stdout")
        .start(() -> pipe(command.stdout(), io.stdout(), false, outputBegan));
    Thread errors = Thread.ofVirtual().name("exec-stderr")
        .start(() -> pipe(command.stderr(), io.stderr(), false, () -> {}));
    try {
      int exitCode = command.waitFor();
      output.join();
      errors.join();
      return exitCode;
    } catch (InterruptedException e) {
      command.kill();
      Thread.currentThread().interrupt();
      throw new CrigateException.Unavailable("exec in container %s ended: the client went away".formatted(job.containerId()));
    } finally {
      input.interrupt();
    }
  }

  @Override
  public void attach(AttachRequest request, StreamIo io) {
    checkAttach(request);
    RunningJob job = jobs.apply(request.getContainerId());
    new JobOutputFollower(job.outputDir().resolve("stdout"), job.outputDir().resolve("stderr"), job.ended())
        .follow(io.stdout(), io.stderr());
  }

  /**
   * Copies until the end of {@code from}, running {@code first} once the first bytes arrived; a broken
   * side ends the copy quietly (the session reports the outcome).
   */
  static void pipe(InputStream from, OutputStream to, boolean closeTarget, Runnable first) {
    byte[] buffer = new byte[8192];
    boolean begun = false;
    try {
      for (int n; (n = from.read(buffer)) >= 0; ) {
        if (!begun) {
          begun = true;
          first.run();
        }
        to.write(buffer, 0, n);
        to.flush();
      }
    } catch (IOException | RuntimeException e) {
      // the client or the command went away; waitFor() and the session handle both
    } finally {
      if (closeTarget) {
        try {
          to.close();
        } catch (IOException e) {
          // srun already exited
        }
      }
    }
  }
}

package io.crigate.cli.ctl;

import io.crigate.spi.CrigateException;
import io.grpc.StatusRuntimeException;
import java.io.IOException;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * One ctl subcommand: opens the channel, runs, and turns expected failures (gRPC status, bad input,
 * unreadable files) into a one-line message and exit code 1 instead of a stack trace.
 */
abstract class CriAction implements Callable<Integer> {

  static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(30);

  @ParentCommand CtlCommand ctl;

  @Spec CommandSpec spec;

  /** Runs the command and returns its exit code. */
  abstract int run(CriSession cri) throws IOException;

  /** How long each call may take when {@code --timeout} is not given. */
  Duration defaultDeadline() {
    return DEFAULT_DEADLINE;
  }

  @Override
  public final Integer call() {
    CtlLogging.quiet();
    Duration deadline;
    String endpoint;
    try {
      deadline = ctl.timeout().orElse(defaultDeadline());
      endpoint = ctl.endpoint();
    } catch (CrigateException e) {
      return fail(e.getMessage());
    }
    try (CriClient client = CriClient.connect(endpoint)) {
      return run(new CriSession(client, deadline));
    } catch (StatusRuntimeException e) {
      return fail(CallFailure.describe(e, endpoint, deadline));
    } catch (CrigateException e) {
      return fail(e.getMessage());
    } catch (IOException e) {
      return fail(e.toString());
    } finally {
      out().flush();
      err().flush();
    }
  }

  PrintWriter out() {
    return spec.commandLine().getOut();
  }

  PrintWriter err() {
    return spec.commandLine().getErr();
  }

  private int fail(String message) {
    err().println("crigate ctl " + spec.name() + ": " + message);
    return 1;
  }
}

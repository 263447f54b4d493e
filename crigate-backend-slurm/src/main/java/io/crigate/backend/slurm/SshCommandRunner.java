package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import io.crigate.spi.TerminalSize;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;
import org.apache.sshd.core.CoreModuleProperties;

/**
 * Runs Slurm commands on a login node over reused SSH sessions ({@link SshSessions}: a bounded
 * number of channels per session, more sessions as load needs). The remote side runs the command
 * through the login shell, so the argv is joined with {@link ShellQuote}. Host keys must be in the
 * configured known_hosts file.
 */
final class SshCommandRunner implements CommandRunner {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final SlurmSettings.Ssh settings;
  private final SshClient client;
  private final SshSessions sessions;
  /**
   * Interactive commands' channels, in connections of their own: an exec left open holds its
   * channel for hours, and enough of them must not leave sbatch and the polls waiting for one.
   */
  private final SshSessions terminals;

  SshCommandRunner(SlurmSettings.Ssh settings) {
    this.settings = settings;
    this.client = SshClient.setUpDefaultClient();
    // Every SSH request is a small write. With Nagle's algorithm one written while the last is not
    // yet acknowledged waits for sshd's delayed ACK, 40 ms on Linux: a channel open measured 43 ms
    // instead of 1-2. OpenSSH's client turns Nagle off for interactive sessions too.
    CoreModuleProperties.TCP_NODELAY.set(client, true);
    client.setServerKeyVerifier(new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE,
        settings.knownHosts()));
    SshIdentities.restrict(client, settings);
    client.start();
    this.sessions = new SshSessions(this::connect, settings.channelsPerSession(), target());
    this.terminals = new SshSessions(this::connect, settings.channelsPerSession(), target());
  }

  @Override
  public CommandResult run(List<String> argv, byte[] stdin) {
    String command = ShellQuote.join(argv);
    SshSessions.Slot slot = sessions.acquire(CommandDeadline.remaining());
    CappedOutput out = new CappedOutput("stdout");
    CappedOutput err = new CappedOutput("stderr");
    try (ChannelExec channel = slot.session().createExecChannel(command)) {
      channel.setIn(new ByteArrayInputStream(stdin));
      channel.setOut(out);
      channel.setErr(err);
      open(channel, argv);
      Duration limit = CommandDeadline.remaining();
      if (!channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), limit).contains(ClientChannelEvent.CLOSED)) {
        // closing the channel hangs up the remote command; the session stays usable
        channel.close(true);
        throw new CrigateException.Unavailable("ssh %s: %s did not finish within %d s and was abandoned"
            .formatted(target(), argv.getFirst(), limit.toSeconds()));
      }
      Integer status = channel.getExitStatus();
      if (status == null) {
        throw new CrigateException.Unavailable("ssh %s: %s ended without an exit status".formatted(target(), argv.getFirst()));
      }
      return CappedOutput.result(status, out, err);
    } catch (IOException e) {
      sessions.broken(slot);
      throw new CrigateException.Unavailable("ssh %s: %s failed: %s".formatted(target(), argv.getFirst(), e.getMessage()), e);
    } finally {
      sessions.release(slot);
    }
  }

  /**
   * Starts {@code argv} on the login node with its streams open to the caller. With a terminal the
   * channel asks for a pseudo-terminal of {@code size} before the command starts, so no window
   * change reaches srun while it waits for the job's terminal; its local echo goes off first, as
   * on this host (LocalInteractive), so the first output is the job's.
   */
  @Override
  public Interactive start(List<String> argv, boolean tty, TerminalSize size) {
    String command = tty ? "stty -echo 2>/dev/null; exec " + ShellQuote.join(argv) : ShellQuote.join(argv);
    SshSessions.Slot slot = terminals.acquire(CONNECT_TIMEOUT);
    ChannelExec channel = null;
    try {
      channel = slot.session().createExecChannel(command);
      if (tty) {
        channel.setUsePty(true);
        channel.setPtyType("xterm");
        channel.setPtyColumns(size.width());
        channel.setPtyLines(size.height());
      }
      open(channel, argv);
      return new SshInteractive(channel, tty, () -> terminals.release(slot));
    } catch (IOException e) {
      terminals.broken(slot);
      terminals.release(slot);
      throw new CrigateException.Unavailable("ssh %s: %s failed: %s".formatted(target(), argv.getFirst(), e.getMessage()), e);
    } catch (RuntimeException e) {
      if (channel != null) {
        channel.close(true);
      }
      terminals.release(slot);
      throw e;
    }
  }

  /** A refused channel fails this command only: the session and the commands it carries go on. */
  private void open(ChannelExec channel, List<String> argv) {
    try {
      channel.open().verify(CONNECT_TIMEOUT);
    } catch (IOException e) {
      throw new CrigateException.Unavailable(("ssh %s: the server refused a channel for %s (%s); if its MaxSessions is "
          + "below %d, lower ssh.maxChannelsPerSession").formatted(target(), argv.getFirst(), e.getMessage(),
          settings.channelsPerSession()), e);
    }
  }

  private ClientSession connect() {
    try {
      ClientSession fresh = client.connect(settings.user(), settings.host(), settings.portOrDefault())
          .verify(CONNECT_TIMEOUT).getSession();
      if (settings.password() != null) {
        fresh.addPasswordIdentity(settings.password());
      }
      try {
        fresh.auth().verify(CONNECT_TIMEOUT);
      } catch (IOException e) {
        fresh.close(true);
        // The server answered and refused the key or password: retrying will not help.
        throw new CrigateException.PermissionDenied("ssh %s: login refused: %s".formatted(target(), e.getMessage()));
      }
      return fresh;
    } catch (IOException e) {
      // The message never contains the password; MINA reports only the stage that failed.
      throw new CrigateException.Unavailable("ssh %s: cannot open session: %s".formatted(target(), e.getMessage()), e);
    }
  }

  private String target() {
    return "%s@%s:%d".formatted(settings.user(), settings.host(), settings.portOrDefault());
  }

  @Override
  public void close() {
    sessions.close();
    terminals.close();
    client.stop();
  }
}

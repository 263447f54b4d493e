package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.concurrent.locks.ReentrantLock;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;
import org.apache.sshd.client.keyverifier.KnownHostsServerKeyVerifier;
import org.apache.sshd.client.keyverifier.RejectAllServerKeyVerifier;
import org.apache.sshd.client.session.ClientSession;

/**
 * Runs Slurm commands on a login node over ONE reused SSH session (a new session per squeue would
 * cost a key exchange each poll). The remote side runs the command through the login shell, so
 * the argv is joined with {@link ShellQuote}. Host keys must be in the configured known_hosts file.
 */
final class SshCommandRunner implements CommandRunner {

  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);

  private final SlurmSettings.Ssh settings;
  private final SshClient client;
  /** Guards {@link #session}; a lock rather than synchronized, which would pin a virtual thread's carrier during the connect. */
  private final ReentrantLock lock = new ReentrantLock();
  private ClientSession session;

  SshCommandRunner(SlurmSettings.Ssh settings) {
    this.settings = settings;
    this.client = SshClient.setUpDefaultClient();
    client.setServerKeyVerifier(new KnownHostsServerKeyVerifier(RejectAllServerKeyVerifier.INSTANCE,
        settings.knownHosts()));
    SshIdentities.restrict(client, settings);
    client.start();
  }

  @Override
  public CommandResult run(List<String> argv, byte[] stdin) {
    String command = ShellQuote.join(argv);
    ClientSession current = session();
    CappedOutput out = new CappedOutput("stdout");
    CappedOutput err = new CappedOutput("stderr");
    try (ChannelExec channel = current.createExecChannel(command)) {
      channel.setIn(new ByteArrayInputStream(stdin));
      channel.setOut(out);
      channel.setErr(err);
      Duration limit = CommandDeadline.remaining();
      channel.open().verify(CONNECT_TIMEOUT);
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
      dropSession(current);
      throw new CrigateException.Unavailable("ssh %s: %s failed: %s".formatted(target(), argv.getFirst(), e.getMessage()), e);
    }
  }

  private ClientSession session() {
    lock.lock();
    try {
      return openSession();
    } finally {
      lock.unlock();
    }
  }

  private ClientSession openSession() {
    if (session != null && session.isOpen() && session.isAuthenticated()) {
      return session;
    }
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
      session = fresh;
      return fresh;
    } catch (IOException e) {
      // The message never contains the password; MINA reports only the stage that failed.
      throw new CrigateException.Unavailable("ssh %s: cannot open session: %s".formatted(target(), e.getMessage()), e);
    }
  }

  private void dropSession(ClientSession broken) {
    lock.lock();
    try {
      if (session == broken) {
        broken.close(true);
        session = null;
      }
    } finally {
      lock.unlock();
    }
  }

  private String target() {
    return "%s@%s:%d".formatted(settings.user(), settings.host(), settings.portOrDefault());
  }

  @Override
  public void close() {
    lock.lock();
    try {
      if (session != null) {
        session.close(true);
      }
      client.stop();
    } finally {
      lock.unlock();
    }
  }
}

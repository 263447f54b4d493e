package io.crigate.backend.slurm;

import io.crigate.spi.TerminalSize;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.time.Duration;
import java.util.EnumSet;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.sshd.client.channel.ChannelExec;
import org.apache.sshd.client.channel.ClientChannelEvent;

/**
 * An interactive command on a login node: one SSH exec channel, its streams the channel's own. With
 * a terminal the remote side runs it on a pseudo-terminal (which merges stderr into stdout) and a
 * resize is an SSH window-change request, which sshd passes to srun as SIGWINCH.
 */
final class SshInteractive implements Interactive {

  /** What OpenSSH's client exits with when the remote side reports no status (a signal ended it). */
  static final int NO_EXIT_STATUS = 255;
  private static final Duration POLL = Duration.ofMillis(200);

  private final ChannelExec channel;
  private final boolean tty;
  private final Runnable release;
  private final AtomicBoolean released = new AtomicBoolean();

  /** @param release gives the channel's slot back to its session, once, when the command has ended */
  SshInteractive(ChannelExec channel, boolean tty, Runnable release) {
    this.channel = channel;
    this.tty = tty;
    this.release = release;
  }

  @Override
  public OutputStream stdin() {
    return channel.getInvertedIn();
  }

  @Override
  public InputStream stdout() {
    return channel.getInvertedOut();
  }

  @Override
  public InputStream stderr() {
    return tty ? InputStream.nullInputStream() : channel.getInvertedErr();
  }

  @Override
  public void resize(TerminalSize size) {
    if (!tty || size.width() <= 0 || size.height() <= 0) {
      return;
    }
    try {
      channel.sendWindowChange(size.width(), size.height());
    } catch (IOException e) {
      // the channel is closing: the command's end reaches waitFor
    }
  }

  /**
   * Waits in short steps, so that an interrupt (the client went away) is seen; MINA's wait is not
   * interruptible. MINA reports CLOSED once the channel's close has begun; the slot is given back
   * when the close has completed, so that sshd, which counts the session until then, does not
   * refuse the next channel on this connection (MaxSessions). Giving it back only if the channel
   * was already closed when CLOSED came lost the slot whenever the close was still under way: a
   * slot a forwarded connection, until every session was full.
   */
  @Override
  public int waitFor() throws InterruptedException {
    boolean closing = false;
    try {
      while (!channel.waitFor(EnumSet.of(ClientChannelEvent.CLOSED), POLL).contains(ClientChannelEvent.CLOSED)) {
        if (Thread.interrupted()) {
          throw new InterruptedException();
        }
      }
      closing = true;
      Integer status = channel.getExitStatus();
      return status == null ? NO_EXIT_STATUS : status;
    } finally {
      if (closing || channel.isClosed()) {
        channel.addCloseFutureListener(closed -> giveBack()); // at once if it has closed already
      }
    }
  }

  /** Closing the channel hangs up the remote command (SIGHUP on its terminal, EOF and a broken pipe without). */
  @Override
  public void kill() {
    channel.close(true);
    giveBack();
  }

  private void giveBack() {
    if (released.compareAndSet(false, true)) {
      release.run();
    }
  }
}

package io.crigate.streaming;

/**
 * The server-to-client half of one session, over whichever protocol the client chose. Channels are
 * numbered as Kubernetes numbers them ({@link #STDOUT}...). Calls come from the session's thread and
 * block while the client is slow to read, so a chatty command is throttled rather than buffered.
 */
interface Outbound {

  int STDIN = 0;
  int STDOUT = 1;
  int STDERR = 2;
  int ERROR = 3;
  int RESIZE = 4;

  void write(int channel, byte[] data, int offset, int length);

  /** Tells the client that nothing more comes on this channel. */
  void close(int channel);

  /** Sends the session's final status on the error channel, then ends the connection. */
  void finish(ExitStatus status);
}

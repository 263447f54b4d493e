package io.crigate.streaming;

/**
 * The server-to-client half of one exec or attach session, over whichever protocol the client
 * chose. Channels are numbered as Kubernetes numbers them ({@link #STDOUT}...).
 */
interface Outbound extends ChannelSink {

  int STDIN = 0;
  int STDOUT = 1;
  int STDERR = 2;
  int ERROR = 3;
  int RESIZE = 4;

  /** Sends the session's final status on the error channel, then ends the connection. */
  void finish(ExitStatus status);
}

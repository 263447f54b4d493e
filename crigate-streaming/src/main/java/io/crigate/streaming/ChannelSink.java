package io.crigate.streaming;

/**
 * Numbered server-to-client channels of one connection: the channels of an exec session, or the
 * streams of a port forward. Calls come from session threads and block while the client is slow to
 * read, so a chatty command is throttled rather than buffered.
 */
interface ChannelSink {

  void write(int channel, byte[] data, int offset, int length);

  /** Tells the client that nothing more comes on this channel. */
  void close(int channel);
}

package io.crigate.ttrpc.transport;

/** Receives the frames of one ttrpc connection, in order, from the transport's event loop. */
public interface FrameListener {

  void onFrame(Frame frame);

  /** The connection is gone; no frame follows. */
  void onClosed();
}

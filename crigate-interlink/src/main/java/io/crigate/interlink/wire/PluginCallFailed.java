package io.crigate.interlink.wire;

/** A plugin answered with a non-200 status; the API layer passes the status on, as interLink does. */
public final class PluginCallFailed extends RuntimeException {

  private final int status;

  public PluginCallFailed(int status, String body) {
    super(body);
    this.status = status;
  }

  public int status() {
    return status;
  }
}

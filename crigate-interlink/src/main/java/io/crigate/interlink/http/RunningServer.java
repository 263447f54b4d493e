package io.crigate.interlink.http;

import io.javalin.Javalin;

/** A started server and the address clients reach it at ({@code http(s)://127.0.0.1:port} or {@code unix:///path}). */
public record RunningServer(Javalin app, String address) implements AutoCloseable {

  @Override
  public void close() {
    app.stop();
  }
}

package io.crigate.backend.cri;

import io.crigate.spi.Backend;
import io.crigate.spi.BackendFactory;
import io.crigate.spi.InitContext;
import io.crigate.transport.UnixSocketChannel;

/**
 * Backends of type {@code cri}: a remote CRI runtime such as containerd, reached over its unix socket.
 * Settings: {@code endpoint} ({@code unix:///path} or a bare path), optional {@code connectTimeout}.
 */
public final class RemoteCriBackendFactory implements BackendFactory {

  public static final String TYPE = "cri";

  @Override
  public String type() {
    return TYPE;
  }

  @Override
  public Backend create(InitContext context) {
    RemoteCriSettings settings = RemoteCriSettings.parse(context.name(), context.settings());
    return new RemoteCriBackend(context.name(), settings.endpoint(), settings.socket(),
        UnixSocketChannel.open(settings.socket(), context.eventLoops(), settings.connectTimeout()));
  }
}

package io.crigate.backend.slurm;

import com.google.protobuf.ByteString;
import io.crigate.api.cri.v1.ContainerConfig;
import io.crigate.api.cri.v1.KeyValue;
import io.crigate.spi.CrigateException;
import io.crigate.spi.SecretNames;
import java.util.Base64;

/**
 * Seals the values of secret-named environment variables ({@link SecretNames}) in the container
 * config the backend stores: a restarted crigate plans the job again from that config, so the
 * values must be kept, but a copy of the state database must not reveal them.
 *
 * <p>A sealed value is {@code crigate-sealed:v1:<base64>}, bound to the container and variable
 * name. A value that already starts with the prefix is sealed too, so opening is never ambiguous.
 */
final class SealedEnv {

  static final String PREFIX = "crigate-sealed:v1:";
  private static final ByteString PREFIX_BYTES = ByteString.copyFromUtf8(PREFIX);

  private final LoginVault vault;

  SealedEnv(LoginVault vault) {
    this.vault = vault;
  }

  ContainerConfig seal(ContainerConfig config, String containerId) {
    if (config.getEnvsList().stream().noneMatch(SealedEnv::sealed)) {
      return config;
    }
    ContainerConfig.Builder stored = config.toBuilder().clearEnvs();
    for (KeyValue env : config.getEnvsList()) {
      if (!sealed(env)) {
        stored.addEnvs(env);
        continue;
      }
      byte[] box = vault.seal(env.getValue().toByteArray(), context(containerId, env.getKey()));
      stored.addEnvs(env.toBuilder().setValue(PREFIX_BYTES.concat(ByteString.copyFromUtf8(
          Base64.getEncoder().encodeToString(box)))));
    }
    return stored.build();
  }

  /** @throws CrigateException.FailedPrecondition when this node's key cannot open a value */
  ContainerConfig open(ContainerConfig stored, String containerId) {
    if (stored.getEnvsList().stream().noneMatch(env -> env.getValue().startsWith(PREFIX_BYTES))) {
      return stored;
    }
    ContainerConfig.Builder config = stored.toBuilder().clearEnvs();
    for (KeyValue env : stored.getEnvsList()) {
      if (!env.getValue().startsWith(PREFIX_BYTES)) {
        config.addEnvs(env);
        continue;
      }
      String context = context(containerId, env.getKey());
      try {
        byte[] box = Base64.getDecoder().decode(env.getValue().substring(PREFIX_BYTES.size()).toStringUtf8());
        config.addEnvs(env.toBuilder().setValue(ByteString.copyFrom(vault.open(box, context))));
      } catch (IllegalArgumentException | IllegalStateException e) {
        throw new CrigateException.FailedPrecondition(("container %s: its variable %s was stored sealed and "
            + "cannot be opened with this node's login-seal.key (%s); remove and recreate the container")
            .formatted(containerId, env.getKey(), e.getMessage()));
      }
    }
    return config.build();
  }

  private static boolean sealed(KeyValue env) {
    return SecretNames.looksSecret(env.getKey()) || env.getValue().startsWith(PREFIX_BYTES);
  }

  private static String context(String containerId, String name) {
    return "env:" + containerId + ":" + name;
  }
}

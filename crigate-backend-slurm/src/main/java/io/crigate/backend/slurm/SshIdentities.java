package io.crigate.backend.slurm;

import java.util.List;
import org.apache.sshd.client.SshClient;
import org.apache.sshd.client.auth.password.UserAuthPasswordFactory;
import org.apache.sshd.client.auth.pubkey.UserAuthPublicKeyFactory;
import org.apache.sshd.client.config.hosts.HostConfigEntryResolver;
import org.apache.sshd.common.keyprovider.FileKeyPairProvider;
import org.apache.sshd.common.keyprovider.KeyIdentityProvider;

/**
 * Limits an SSH client to the one credential its settings name. MINA's default client otherwise
 * also offers the daemon's own {@code ~/.ssh/id_*} keys, reads {@code ~/.ssh/config} and may use an
 * agent: a pod that names a user whose authorized_keys holds root's key would then log in with
 * any password at all and run its jobs as that user.
 */
final class SshIdentities {

  private SshIdentities() {}

  /**
   * A key file means public-key authentication with that key only; otherwise password
   * authentication only (container logins always take this branch: they never have a key).
   */
  static void restrict(SshClient client, SlurmSettings.Ssh settings) {
    client.setHostConfigEntryResolver(HostConfigEntryResolver.EMPTY);
    client.setAgentFactory(null);
    if (settings.privateKey() != null) {
      client.setKeyIdentityProvider(new FileKeyPairProvider(settings.privateKey()));
      client.setUserAuthFactories(List.of(UserAuthPublicKeyFactory.INSTANCE));
    } else {
      client.setKeyIdentityProvider(KeyIdentityProvider.EMPTY_KEYS_PROVIDER);
      client.setUserAuthFactories(List.of(UserAuthPasswordFactory.INSTANCE));
    }
  }
}

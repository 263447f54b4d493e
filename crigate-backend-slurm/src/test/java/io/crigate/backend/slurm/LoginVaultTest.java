package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LoginVaultTest {

  @TempDir Path state;

  @Test
  void sealedPasswordsOpenOnlyForTheirLoginUnderTheSameKey() throws Exception {
    LoginVault vault = LoginVault.in(state);
    byte[] sealed = vault.seal("p$(w) `x` ünï", "alice@h:22");

    assertThat(new String(sealed, StandardCharsets.ISO_8859_1)).doesNotContain("p$(w)");
    // a second vault over the same state dir is what a restarted crigate gets
    assertThat(LoginVault.in(state).unseal(sealed, "alice@h:22")).isEqualTo("p$(w) `x` ünï");
    assertThatThrownBy(() -> vault.unseal(sealed, "mallory@h:22")).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("mallory@h:22");
    sealed[sealed.length - 1] ^= 1;
    assertThatThrownBy(() -> vault.unseal(sealed, "alice@h:22")).isInstanceOf(IllegalStateException.class);
    assertThat(vault.seal("same", "k")).isNotEqualTo(vault.seal("same", "k"));
  }

  @Test
  void theKeyFileIsPrivateAndAnotherNodesKeyCannotOpen() throws Exception {
    byte[] sealed = LoginVault.in(state).seal("secret", "alice@h:22");
    Path key = state.resolve("login-seal.key");

    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(key))).isEqualTo("rw-------");
    assertThat(Files.size(key)).isEqualTo(32);
    Files.delete(key);
    assertThatThrownBy(() -> LoginVault.in(state).unseal(sealed, "alice@h:22")).isInstanceOf(IllegalStateException.class);
  }
}

package io.crigate.backend.slurm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.SecretKey;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * Seals cluster passwords and secret-named environment values ({@link SealedEnv}) before they reach
 * the durable store, with AES-256-GCM under a key kept
 * in its own 0600 file in the backend's state dir. A copy of the state database (a backup, a bug
 * report) then does not give away the passwords; the key file does, so it never leaves the node.
 * The login's key is bound in as associated data, so a sealed password cannot be replayed for
 * another login.
 */
final class LoginVault {

  private static final String KEY_FILE = "login-seal.key";
  private static final int KEY_BYTES = 32;
  private static final int NONCE_BYTES = 12;
  private static final int TAG_BITS = 128;

  private final SecretKey key;
  private final SecureRandom random = new SecureRandom();

  private LoginVault(SecretKey key) {
    this.key = key;
  }

  /** The vault of {@code stateDir}; the first call creates its key. */
  static LoginVault in(Path stateDir) {
    Path file = stateDir.resolve(KEY_FILE);
    try {
      if (!Files.exists(file)) {
        create(file);
      }
      byte[] bytes = Files.readAllBytes(file);
      if (bytes.length != KEY_BYTES) {
        throw new IllegalStateException("%s is not a %d-byte key; remove it only together with the stored logins"
            .formatted(file, KEY_BYTES));
      }
      return new LoginVault(new SecretKeySpec(bytes, "AES"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Written under a temporary name and moved into place, so a crash never leaves a short key. */
  private static void create(Path file) throws IOException {
    byte[] bytes = new byte[KEY_BYTES];
    new SecureRandom().nextBytes(bytes);
    Path temp = Files.createTempFile(file.getParent(), KEY_FILE, ".tmp",
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    try {
      Files.write(temp, bytes);
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** nonce || ciphertext-with-tag */
  byte[] seal(String password, String loginKey) {
    return seal(password.getBytes(StandardCharsets.UTF_8), loginKey);
  }

  /** @throws IllegalStateException when the blob was not sealed for this login under this key */
  String unseal(byte[] sealed, String loginKey) {
    return new String(open(sealed, loginKey), StandardCharsets.UTF_8);
  }

  /**
   * Seals any secret bound to {@code context} (a login key, a container's variable), which must be
   * given again to open it: a sealed value moved to another record does not open.
   */
  byte[] seal(byte[] plain, String context) {
    byte[] nonce = new byte[NONCE_BYTES];
    random.nextBytes(nonce);
    byte[] sealed = crypt(Cipher.ENCRYPT_MODE, nonce, context, plain);
    byte[] out = Arrays.copyOf(nonce, NONCE_BYTES + sealed.length);
    System.arraycopy(sealed, 0, out, NONCE_BYTES, sealed.length);
    return out;
  }

  /** @throws IllegalStateException when the blob was not sealed for {@code context} under this key */
  byte[] open(byte[] sealed, String context) {
    if (sealed.length < NONCE_BYTES) {
      throw new IllegalStateException("sealed value of %s is truncated".formatted(context));
    }
    byte[] nonce = Arrays.copyOf(sealed, NONCE_BYTES);
    byte[] body = Arrays.copyOfRange(sealed, NONCE_BYTES, sealed.length);
    return crypt(Cipher.DECRYPT_MODE, nonce, context, body);
  }

  private byte[] crypt(int mode, byte[] nonce, String context, byte[] input) {
    try {
      Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
      cipher.init(mode, key, new GCMParameterSpec(TAG_BITS, nonce));
      cipher.updateAAD(context.getBytes(StandardCharsets.UTF_8));
      return cipher.doFinal(input);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("sealed value of %s cannot be unsealed with this node's key"
          .formatted(context), e);
    }
  }
}

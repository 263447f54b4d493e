package io.crigate.bench;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** What docker-registry's access log says containerd fetched: the ground truth of the experiments' bytes. */
final class RegistryAccessLog {

  private RegistryAccessLog() {}

  /** {@link #blobBytes} of what the log gained since it was {@code offset} bytes long. */
  static long blobBytesSince(Path log, long offset, String repository) throws IOException {
    byte[] appended;
    try (RandomAccessFile file = new RandomAccessFile(log.toFile(), "r")) {
      appended = new byte[(int) (file.length() - offset)];
      file.seek(offset);
      file.readFully(appended);
    }
    return blobBytes(new String(appended, StandardCharsets.UTF_8), repository);
  }

  /**
   * Bytes of successful blob GETs by containerd under {@code repository}; manifests, HEADs, and other
   * clients (skopeo pushing, the registry client resolving layers) are not transfers to a node.
   */
  static long blobBytes(String accessLog, String repository) {
    Pattern blobGet = Pattern.compile("\"GET /v2/" + Pattern.quote(repository)
        + "/\\S+/blobs/sha256:[0-9a-f]{64} HTTP/[0-9.]+\" 200 (\\d+) \"[^\"]*\" \"containerd");
    long bytes = 0;
    Matcher m = blobGet.matcher(accessLog);
    while (m.find()) {
      bytes += Long.parseLong(m.group(1));
    }
    return bytes;
  }
}

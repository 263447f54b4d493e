package io.crigate.core.dump;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.cri.v1.VersionRequest;
import io.grpc.Status;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** Issue 16 item 8: one call that breaks the writer (even with an Error) costs that call, not the dump. */
class AsyncDumpWriterTest {

  private static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-02T03:04:05Z"), ZoneOffset.UTC);

  /** Throws a StackOverflowError, as the old redaction regex did, on its first write. */
  private static final class FailingOnce extends StringWriter {
    private boolean failed;

    @Override
    public void write(String text) {
      if (!failed) {
        failed = true;
        throw new StackOverflowError("simulated");
      }
      super.write(text);
    }
  }

  @Test
  void anErrorWhileWritingOneCallIsCountedAndTheWriterKeepsGoing() {
    FailingOnce out = new FailingOnce();
    AsyncDumpWriter writer = new AsyncDumpWriter(new DumpEncoder(DumpFormat.JSON,
        new SecretRedactor(Pattern.compile(DumpSettings.DEFAULT_REDACT_ENV))), out, false, 16, CLOCK);

    writer.submit(call("/runtime.v1.RuntimeService/Version"));
    writer.submit(call("/runtime.v1.RuntimeService/Status"));
    writer.close();

    assertThat(writer.dropped()).isEqualTo(1);
    assertThat(out.toString()).contains("\"method\":\"/runtime.v1.RuntimeService/Status\"").contains("\"dropped\":1")
        .doesNotContain("RuntimeService/Version");
  }

  private static DumpedCall call(String method) {
    return new DumpedCall(CLOCK.instant(), method, 1, Status.OK, DumpLevel.FULL,
        VersionRequest.getDefaultInstance(), null, 0);
  }
}

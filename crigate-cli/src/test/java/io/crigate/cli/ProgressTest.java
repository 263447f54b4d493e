package io.crigate.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

class ProgressTest {

  @Test
  void offATerminalProgressIsOnePlainLinePerTenthWithoutCarriageReturns() {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    IntConsumer progress = Progress.lines(new PrintStream(bytes, true, StandardCharsets.UTF_8), "seed 1", 200);

    for (int done = 1; done <= 200; done++) {
      progress.accept(done);
    }

    String out = bytes.toString(StandardCharsets.UTF_8);
    assertThat(out).doesNotContain("\r").doesNotContain("\u001b");
    assertThat(out.lines()).hasSize(10).startsWith("seed 1: 20/200").endsWith("seed 1: 200/200");
  }

  @Test
  void withoutTheTerminalPropertyProgressGoesToPlainLines() {
    assertThat(Boolean.getBoolean("crigate.stderr.tty")).isFalse();
    PrintStream stderr = System.err;
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    System.setErr(new PrintStream(bytes, true, StandardCharsets.UTF_8));
    try {
      IntConsumer progress = Progress.on("task", 2);
      progress.accept(1);
      progress.accept(2);
    } finally {
      System.setErr(stderr);
    }
    assertThat(bytes.toString(StandardCharsets.UTF_8)).isEqualTo("task: 1/2%ntask: 2/2%n".formatted());
  }
}

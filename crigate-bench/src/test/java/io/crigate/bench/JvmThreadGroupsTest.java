package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.bench.ProcessCpu.JvmThreads;
import java.lang.management.ManagementFactory;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The split of a crigate process's CPU by thread group that the lifecycle report prints (ProcessCpu.JvmThreads). */
class JvmThreadGroupsTest {

  @Test
  void threadsAreGroupedByTheirNames() {
    assertThat(JvmThreads.of("crigate-io-1-1")).isEqualTo(JvmThreads.EVENT_LOOP);
    assertThat(JvmThreads.of("ForkJoinPool-1-")).isEqualTo(JvmThreads.CARRIERS);
    assertThat(JvmThreads.of("VirtualThread-u")).isEqualTo(JvmThreads.CARRIERS);
    assertThat(JvmThreads.of("C2 CompilerThre")).isEqualTo(JvmThreads.JIT);
    assertThat(JvmThreads.of("VM Thread")).isEqualTo(JvmThreads.GC_AND_VM);
    assertThat(JvmThreads.of("java")).isEqualTo(JvmThreads.OTHER);
  }

  /** A thread named like crigate's event loop burns CPU; its group of this very process counts it. */
  @Test
  void aGroupCountsTheCpuOfItsThreadsInThisProcess() throws Exception {
    long pid = ProcessHandle.current().pid();
    CountDownLatch burnt = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicLong burntNanos = new AtomicLong();
    Thread loop = Thread.ofPlatform().name("crigate-io-test").start(() -> {
      long end = System.nanoTime() + 200_000_000L;
      while (System.nanoTime() < end) {
        Thread.onSpinWait();
      }
      burntNanos.set(ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime());
      burnt.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    burnt.await();
    long[] groups = ProcessCpu.nanosByThreadGroup(pid);
    release.countDown();
    loop.join();

    // the kernel's accounting and the JVM's differ a little; the thread is the group's only one
    assertThat(groups[JvmThreads.EVENT_LOOP.ordinal()]).isPositive().isGreaterThanOrEqualTo(burntNanos.get() / 2);
    assertThat(groups[JvmThreads.OTHER.ordinal()]).as("the test's own threads").isPositive();
  }
}

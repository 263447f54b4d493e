package io.crigate.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.bench.ProcessCpu.Group;
import io.crigate.bench.ProcessCpu.ThreadCpu;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * The extender benchmark splits a process's CPU per call by thread group from /proc; read here from
 * this JVM's own /proc entries, with threads that burn known amounts of CPU under names the kernel
 * shows as their comm.
 */
class ProcessCpuTest {

  static final long PID = ProcessHandle.current().pid();

  @Test
  void aThreadsGrowthGoesToItsGroupAndTheGroupsAddUpToTheProcess() throws Exception {
    CountDownLatch warmed = new CountDownLatch(1);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch burnt = new CountDownLatch(1);
    AtomicBoolean done = new AtomicBoolean();
    var threads = java.lang.management.ManagementFactory.getThreadMXBean();
    // a "collector" thread alive in both snapshots: its growth counts, not its time before
    Thread gc = new Thread(() -> {
      spin(threads, 100_000_000L);
      warmed.countDown();
      try {
        go.await();
      } catch (InterruptedException e) {
        return;
      }
      spin(threads, 300_000_000L);
      burnt.countDown();
      while (!done.get()) {
        Thread.onSpinWait();
      }
    }, "GC Thread#77");
    gc.start();
    warmed.await();
    Map<Long, ThreadCpu> before = ProcessCpu.threads(PID);
    long processBefore = ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos();
    go.countDown();
    burnt.await();
    Map<Long, ThreadCpu> after = ProcessCpu.threads(PID);
    long process = ProcessHandle.current().info().totalCpuDuration().orElseThrow().toNanos() - processBefore;
    done.set(true);
    gc.join();

    Map<Group, Long> groups = ProcessCpu.byGroup(before, after);
    long total = groups.values().stream().mapToLong(Long::longValue).sum();
    assertThat(groups.get(Group.GC)).isBetween(300_000_000L, 450_000_000L);
    // the threads add up to what the process used, within /proc/<pid>/stat's 10 ms ticks
    assertThat(total).isBetween(process - 100_000_000L, process + 60_000_000L);
  }

  static void spin(java.lang.management.ThreadMXBean threads, long nanos) {
    long until = threads.getCurrentThreadCpuTime() + nanos;
    while (threads.getCurrentThreadCpuTime() < until) {
      Thread.onSpinWait();
    }
  }

  @Test
  void aThreadStartedBetweenSnapshotsCountsAllItsTime() throws Exception {
    CountDownLatch burnt = new CountDownLatch(1);
    AtomicBoolean done = new AtomicBoolean();
    var threads = java.lang.management.ManagementFactory.getThreadMXBean();
    Map<Long, ThreadCpu> before = ProcessCpu.threads(PID);
    Thread compiler = new Thread(() -> {
      long until = threads.getCurrentThreadCpuTime() + 200_000_000L;
      while (threads.getCurrentThreadCpuTime() < until) {
        Thread.onSpinWait();
      }
      burnt.countDown();
      while (!done.get()) {
        Thread.onSpinWait();
      }
    }, "C1 CompilerThread5");
    compiler.start();
    burnt.await();
    Map<Long, ThreadCpu> after = ProcessCpu.threads(PID);
    done.set(true);
    compiler.join();
    assertThat(after.values()).anyMatch(t -> t.comm().equals("C1 CompilerThre"));
    assertThat(ProcessCpu.byGroup(before, after).get(Group.JIT)).isGreaterThanOrEqualTo(200_000_000L);
  }

  @Test
  void namesWithParenthesesAndTheJvmsOwnThreadsAreRead() throws Exception {
    CountDownLatch running = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    Thread odd = new Thread(() -> {
      running.countDown();
      try {
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "a) (b) c");
    odd.start();
    running.await();
    try {
      Map<Long, ThreadCpu> threads = ProcessCpu.threads(PID);
      assertThat(threads.values()).anyMatch(t -> t.comm().equals("a) (b) c"));
      // this JVM's own compiler and collector threads land in their groups by their real names
      assertThat(threads.values()).anyMatch(t -> Group.of(t.comm()) == Group.JIT);
      assertThat(threads.values()).anyMatch(t -> Group.of(t.comm()) == Group.GC);
      long ticks = threads.keySet().stream().mapToLong(tid -> {
        try {
          return ProcessCpu.statTicks(Files.readString(Path.of("/proc", Long.toString(PID), "task", tid.toString(), "stat")));
        } catch (java.io.IOException gone) {
          return 0;
        }
      }).sum();
      long processTicks = ProcessCpu.statTicks(Files.readString(Path.of("/proc", Long.toString(PID), "stat")));
      // the threads' ticks add up to the process's (ended threads' time is in the process only)
      assertThat(ticks).isBetween(processTicks / 2, processTicks + 5);
    } finally {
      release.countDown();
      odd.join();
    }
  }

  @Test
  void groupsOfTheExtendersThreads() {
    assertThat(Group.of("ForkJoinPool-1-")).isEqualTo(Group.HTTP);
    assertThat(Group.of("G1 Conc#0")).isEqualTo(Group.GC);
    assertThat(Group.of("VM Thread")).isEqualTo(Group.GC);
    assertThat(Group.of("C2 CompilerThre")).isEqualTo(Group.JIT);
    assertThat(Group.of("vert.x-eventloo")).isEqualTo(Group.INFORMER);
    assertThat(Group.of("main")).isEqualTo(Group.OTHER);
  }
}

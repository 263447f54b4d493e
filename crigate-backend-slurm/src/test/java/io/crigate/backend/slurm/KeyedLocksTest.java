package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class KeyedLocksTest {

  private static final Duration PATIENCE = Duration.ofSeconds(30);

  /** Starts a thread that takes the lock of {@code id}, notes it, and holds it until {@code release} opens. */
  private static Thread holder(KeyedLocks locks, String id, AtomicBoolean holding, CountDownLatch release) {
    return Thread.ofPlatform().start(() -> {
      try (KeyedLocks.Held held = locks.hold(id)) {
        holding.set(true);
        release.await();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } finally {
        holding.set(false);
      }
    });
  }

  /** Blocked on the lock, or holding it: whichever comes first, so the test never guesses a delay. */
  private static void awaitBlockedOrHolding(Thread thread, AtomicBoolean holding) {
    await().atMost(PATIENCE).until(() -> holding.get() || thread.getState() == Thread.State.WAITING);
  }

  /**
   * The lock of an id is let go by its holder while a second thread waits for it: the entry must
   * survive that release, or a third thread would get a fresh lock for the same id and run beside
   * the second. (Removing the entry from outside the lock, as container removal did, allowed it.)
   */
  @Test
  void releasingWhileOthersWaitNeverLetsTwoHoldTheSameId() throws Exception {
    KeyedLocks locks = new KeyedLocks();
    KeyedLocks.Held first = locks.hold("c");
    AtomicBoolean secondHolding = new AtomicBoolean();
    CountDownLatch releaseSecond = new CountDownLatch(1);
    Thread second = holder(locks, "c", secondHolding, releaseSecond);
    awaitBlockedOrHolding(second, secondHolding);
    assertThat(secondHolding).as("the second thread waits while the first holds").isFalse();

    first.close();
    await().atMost(PATIENCE).untilTrue(secondHolding);

    AtomicBoolean thirdHolding = new AtomicBoolean();
    CountDownLatch releaseThird = new CountDownLatch(1);
    Thread third = holder(locks, "c", thirdHolding, releaseThird);
    awaitBlockedOrHolding(third, thirdHolding);
    assertThat(thirdHolding).as("a third thread must wait for the second").isFalse();

    releaseSecond.countDown();
    await().atMost(PATIENCE).untilTrue(thirdHolding);
    releaseThird.countDown();
    second.join();
    third.join();
  }

  @Test
  void differentIdsDoNotWaitForEachOtherAndTheSameThreadMayHoldTwice() {
    KeyedLocks locks = new KeyedLocks();
    try (KeyedLocks.Held a = locks.hold("a"); KeyedLocks.Held again = locks.hold("a")) {
      AtomicBoolean bHolding = new AtomicBoolean();
      CountDownLatch release = new CountDownLatch(1);
      Thread b = holder(locks, "b", bHolding, release);
      awaitBlockedOrHolding(b, bHolding);
      assertThat(bHolding).isTrue();
      release.countDown();
    }
  }
}

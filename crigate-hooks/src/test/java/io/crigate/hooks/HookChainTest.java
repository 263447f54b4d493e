package io.crigate.hooks;

import static io.crigate.hooks.Pods.container;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HookChainTest {

  private final List<String> calls = new ArrayList<>();

  /** A hook that records its call and answers with fixed changes or a fixed failure. */
  private Hook hook(String name, Changes answer, RuntimeException failure) {
    return new Hook() {
      @Override
      public String name() {
        return name;
      }

      @Override
      public Set<Stage> stages() {
        return Set.of(Stage.PRE_CREATE_CONTAINER);
      }

      @Override
      public Changes onContainer(Stage stage, ContainerContext c) {
        calls.add(name);
        if (failure != null) {
          throw failure;
        }
        return answer;
      }
    };
  }

  @Test
  void runsInOrderAndTheLaterHookWinsAField() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("late", Changes.of(Resources.NONE.withCpuShares(512L)), null), 20, FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("early", new Changes(Resources.NONE.withCpuShares(2L).withOomScoreAdj(1000L),
            Map.of("A", "1")), null), 10, FailurePolicy.FAIL_OPEN)));

    Changes result = chain.runContainer(Stage.PRE_CREATE_CONTAINER, container("c", Map.of(), Map.of()));

    assertThat(calls).containsExactly("early", "late");
    assertThat(result).isEqualTo(new Changes(Resources.NONE.withCpuShares(512L).withOomScoreAdj(1000L), Map.of("A", "1")));
  }

  @Test
  void failOpenSkipsTheFailingHookAndKeepsTheOthers() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("bad", null, new CrigateException.InvalidArgument("annotation x broken")), 10,
            FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("good", Changes.of(Resources.NONE.withCpuShares(2L)), null), 20, FailurePolicy.FAIL_OPEN)));

    assertThat(chain.runContainer(Stage.PRE_CREATE_CONTAINER, container("c", Map.of(), Map.of())))
        .isEqualTo(Changes.of(Resources.NONE.withCpuShares(2L)));
    assertThat(calls).containsExactly("bad", "good");
  }

  @Test
  void failClosedRejectsTheCallNamingHookTargetAndCause() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("bad", null, new CrigateException.InvalidArgument("annotation x broken")), 10,
            FailurePolicy.FAIL_CLOSED),
        new HookRegistration(hook("never", Changes.none(), null), 20, FailurePolicy.FAIL_OPEN)));

    assertThatThrownBy(() -> chain.runContainer(Stage.PRE_CREATE_CONTAINER, container("c", Map.of(), Map.of())))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage("hook bad rejected ns/p/c at PreCreateContainer: annotation x broken");
    assertThat(calls).containsExactly("bad");
  }

  @Test
  void failClosedTurnsAHookBugIntoFailedPrecondition() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("buggy", null, new IllegalStateException("boom")), 10, FailurePolicy.FAIL_CLOSED)));

    assertThatThrownBy(() -> chain.runContainer(Stage.PRE_CREATE_CONTAINER, container("c", Map.of(), Map.of())))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining("boom");
  }

  @Test
  void stageWithoutHooksIsHandledByNone() {
    HookChain chain = new HookChain(List.of(new HookRegistration(hook("h", Changes.none(), null), 1, FailurePolicy.FAIL_OPEN)));
    assertThat(chain.handles(Stage.PRE_CREATE_CONTAINER)).isTrue();
    assertThat(chain.handles(Stage.POST_STOP_CONTAINER)).isFalse();
    assertThat(chain.runContainer(Stage.POST_STOP_CONTAINER, container("c", Map.of(), Map.of()))).isEqualTo(Changes.none());
  }

  @Test
  void duplicateNamesAreRejected() {
    assertThatThrownBy(() -> new HookChain(List.of(
        new HookRegistration(hook("h", Changes.none(), null), 1, FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("h", Changes.none(), null), 2, FailurePolicy.FAIL_OPEN))))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unique");
  }
}

package io.crigate.hooks;

import static io.crigate.hooks.BuiltInHooksTest.adj;
import static io.crigate.hooks.Pods.container;
import static io.crigate.hooks.Pods.pod;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import io.crigate.spi.adjust.Adjustment;
import io.crigate.spi.adjust.ContainerContext;
import io.crigate.spi.adjust.Mount;
import io.crigate.spi.adjust.PodContext;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HookChainTest {

  private final List<String> calls = new ArrayList<>();

  /** A hook that records its call and answers with fixed changes or a fixed failure. */
  private Hook hook(String name, Adjustment answer, RuntimeException failure) {
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
      public Adjustment onContainer(Stage stage, PodContext pod, ContainerContext c) {
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
        new HookRegistration(hook("late", adj(512L, null, null, null, null), null), 20, FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("early", Adjustment.builder().resources(adj(2L, null, null, null, null).resources())
            .oomScoreAdj(1000L).env("A", "1").build(), null), 10, FailurePolicy.FAIL_OPEN)));

    Adjustment result = chain.runContainer(Stage.PRE_CREATE_CONTAINER, pod(Map.of(), Map.of()), container("c"));

    assertThat(calls).containsExactly("early", "late");
    assertThat(result).isEqualTo(Adjustment.builder().resources(adj(512L, null, null, null, null).resources())
        .oomScoreAdj(1000L).env("A", "1").build());
  }

  @Test
  void aLaterHooksMountReplacesAnEarlierOneAtTheSameContainerPathAndOthersAreKept() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("early", Adjustment.builder().mount(new Mount("/lib/x.so", "/host/old.so", true))
            .mount(Mount.samePath("/tmp/lock")).build(), null), 10, FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("late", Adjustment.builder().mount(new Mount("/lib/x.so", "/host/new.so", false))
            .build(), null), 20, FailurePolicy.FAIL_OPEN)));

    assertThat(chain.runContainer(Stage.PRE_CREATE_CONTAINER, pod(Map.of(), Map.of()), container("c")).mounts())
        .containsExactly(new Mount("/lib/x.so", "/host/new.so", false), Mount.samePath("/tmp/lock"));
  }

  @Test
  void failOpenSkipsTheFailingHookAndKeepsTheOthers() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("bad", null, new CrigateException.InvalidArgument("annotation x broken")), 10,
            FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("good", adj(2L, null, null, null, null), null), 20, FailurePolicy.FAIL_OPEN)));

    assertThat(chain.runContainer(Stage.PRE_CREATE_CONTAINER, pod(Map.of(), Map.of()), container("c")))
        .isEqualTo(adj(2L, null, null, null, null));
    assertThat(calls).containsExactly("bad", "good");
  }

  @Test
  void failClosedRejectsTheCallNamingHookTargetAndCause() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("bad", null, new CrigateException.InvalidArgument("annotation x broken")), 10,
            FailurePolicy.FAIL_CLOSED),
        new HookRegistration(hook("never", Adjustment.NONE, null), 20, FailurePolicy.FAIL_OPEN)));

    assertThatThrownBy(() -> chain.runContainer(Stage.PRE_CREATE_CONTAINER, pod(Map.of(), Map.of()), container("c")))
        .isInstanceOf(CrigateException.InvalidArgument.class)
        .hasMessage("hook bad rejected ns/p/c at PreCreateContainer: annotation x broken");
    assertThat(calls).containsExactly("bad");
  }

  @Test
  void failClosedTurnsAHookBugIntoFailedPrecondition() {
    HookChain chain = new HookChain(List.of(
        new HookRegistration(hook("buggy", null, new IllegalStateException("boom")), 10, FailurePolicy.FAIL_CLOSED)));

    assertThatThrownBy(() -> chain.runContainer(Stage.PRE_CREATE_CONTAINER, pod(Map.of(), Map.of()), container("c")))
        .isInstanceOf(CrigateException.FailedPrecondition.class).hasMessageContaining("boom");
  }

  @Test
  void stageWithoutHooksIsHandledByNone() {
    HookChain chain = new HookChain(List.of(new HookRegistration(hook("h", Adjustment.NONE, null), 1, FailurePolicy.FAIL_OPEN)));
    assertThat(chain.handles(Stage.PRE_CREATE_CONTAINER)).isTrue();
    assertThat(chain.handles(Stage.POST_STOP_CONTAINER)).isFalse();
    assertThat(chain.runContainer(Stage.POST_STOP_CONTAINER, pod(Map.of(), Map.of()), container("c"))).isEqualTo(Adjustment.NONE);
  }

  @Test
  void duplicateNamesAreRejected() {
    assertThatThrownBy(() -> new HookChain(List.of(
        new HookRegistration(hook("h", Adjustment.NONE, null), 1, FailurePolicy.FAIL_OPEN),
        new HookRegistration(hook("h", Adjustment.NONE, null), 2, FailurePolicy.FAIL_OPEN))))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("unique");
  }
}

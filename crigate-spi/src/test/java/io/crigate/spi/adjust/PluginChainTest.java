package io.crigate.spi.adjust;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PluginChainTest {

  static final PodContext POD = new PodContext("pod1", "web", "ns", "uid", QosClass.GUARANTEED, Map.of(), Map.of(),
      "", "", ResourceRequirements.NONE, Map.of());
  static final ContainerContext NEW = new ContainerContext(new ContainerKey("pod1", "app", 0), "", Map.of(), Map.of(),
      Map.of(), new ResourceRequirements(2000, 2000, 1 << 20, 1 << 20), LinuxResources.NONE);

  record Fixed(String name, PluginResult answer, Set<LifecycleEvent> events) implements AdjustmentPlugin {
    Fixed(String name, PluginResult answer) {
      this(name, answer, EnumSet.allOf(LifecycleEvent.class));
    }

    @Override
    public PluginResult createContainer(PodContext pod, ContainerContext container) {
      return answer;
    }

    @Override
    public PluginResult updateContainerResources(PodContext pod, ContainerContext container, LinuxResources requested) {
      return answer;
    }
  }

  @Test
  void disjointFieldsOfTwoPluginsMerge() {
    PluginChain chain = new PluginChain(List.of(
        new Fixed("policy", new PluginResult(Adjustment.of(LinuxResources.builder().cpusetCpus("2-3").build()),
            List.of(ContainerUpdate.of("other", LinuxResources.builder().cpusetCpus("0-1").build())))),
        new Fixed("hooks", new PluginResult(Adjustment.builder().env("GPU", "0").oomScoreAdj(-998)
            .resources(LinuxResources.builder().cpuShares(2048).build()).build(),
            List.of(ContainerUpdate.of("other", LinuxResources.builder().memoryLimit(5).build()))))));

    PluginResult merged = chain.createContainer(POD, NEW);

    assertThat(merged.adjustment().resources().cpusetCpus()).contains("2-3");
    assertThat(merged.adjustment().resources().cpuShares()).hasValue(2048);
    assertThat(merged.adjustment().oomScoreAdj()).hasValue(-998);
    assertThat(merged.adjustment().env()).containsEntry("GPU", "0");
    assertThat(merged.updates()).containsExactly(new ContainerUpdate("other",
        LinuxResources.builder().cpusetCpus("0-1").memoryLimit(5).build(), false));
  }

  @Test
  void sameFieldFromTwoPluginsIsAnErrorNamingBoth() {
    PluginResult cpus = PluginResult.adjust(Adjustment.of(LinuxResources.builder().cpusetCpus("1").build()));
    PluginChain chain = new PluginChain(List.of(new Fixed("static", cpus), new Fixed("koordinator", cpus)));

    assertThatThrownBy(() -> chain.createContainer(POD, NEW))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("static and koordinator both set cpuset.cpus")
        .hasMessageContaining("CreateContainer of container pod1/app/0");
  }

  @Test
  void mountsOfTwoPluginsMergeAndTheSameContainerPathIsAnErrorNamingBoth() {
    PluginResult lib = PluginResult.adjust(Adjustment.builder().mount(Mount.samePath("/usr/lib/x.so")).build());
    PluginResult lock = PluginResult.adjust(Adjustment.builder().mount(Mount.samePath("/tmp/lock")).build());
    PluginResult otherLib = PluginResult.adjust(Adjustment.builder().mount(new Mount("/usr/lib/x.so", "/opt/x.so", true)).build());

    assertThat(new PluginChain(List.of(new Fixed("hooks", lib), new Fixed("nri:10-gpu", lock)))
        .createContainer(POD, NEW).adjustment().mounts())
        .containsExactly(Mount.samePath("/tmp/lock"), Mount.samePath("/usr/lib/x.so"));
    assertThatThrownBy(() -> new PluginChain(List.of(new Fixed("hooks", lib), new Fixed("nri:10-gpu", otherLib)))
        .createContainer(POD, NEW))
        .isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("hooks and nri:10-gpu both set mounts./usr/lib/x.so");
  }

  @Test
  void twoPluginsUpdatingTheSameFieldOfAnotherContainerConflict() {
    PluginResult update = PluginResult.update(List.of(ContainerUpdate.of("c9", LinuxResources.builder().cpuQuota(1).build())));
    PluginChain chain = new PluginChain(List.of(new Fixed("a", update), new Fixed("b", update)));

    assertThatThrownBy(() -> chain.createContainer(POD, NEW))
        .hasMessageContaining("a and b both set cpu.quota in update of container c9");
  }

  @Test
  void anUpdateOfTheSubjectFoldsIntoItsAdjustmentAndConflictsWithOthers() {
    ContainerContext running = NEW.withId("c1");
    PluginChain folding = new PluginChain(List.of(
        new Fixed("a", PluginResult.update(List.of(ContainerUpdate.of("c1", LinuxResources.builder().cpusetCpus("4").build()))))));
    assertThat(folding.updateContainerResources(POD, running, LinuxResources.NONE))
        .isEqualTo(PluginResult.adjust(Adjustment.of(LinuxResources.builder().cpusetCpus("4").build())));

    PluginChain clashing = new PluginChain(List.of(folding.plugins().getFirst(),
        new Fixed("b", PluginResult.adjust(Adjustment.of(LinuxResources.builder().cpusetCpus("5").build())))));
    assertThatThrownBy(() -> clashing.updateContainerResources(POD, running, LinuxResources.NONE))
        .hasMessageContaining("a and b both set cpuset.cpus in UpdateContainerResources of container c1");
  }

  @Test
  void aPluginIsAskedOnlyForItsEvents() {
    PluginResult cpus = PluginResult.adjust(Adjustment.of(LinuxResources.builder().cpusetCpus("1").build()));
    PluginChain chain = new PluginChain(List.of(new Fixed("a", cpus),
        new Fixed("b", cpus, EnumSet.of(LifecycleEvent.UPDATE_CONTAINER_RESOURCES))));

    assertThat(chain.createContainer(POD, NEW)).isEqualTo(cpus);
    assertThat(chain.wants(LifecycleEvent.REMOVE_CONTAINER)).isTrue();
  }

  @Test
  void aFailingPluginFailsTheCallNamingItAndARejectionKeepsItsKind() {
    AdjustmentPlugin broken = new AdjustmentPlugin() {
      @Override
      public String name() {
        return "broken";
      }

      @Override
      public PluginResult createContainer(PodContext pod, ContainerContext container) {
        throw new ArithmeticException("boom");
      }

      @Override
      public PluginResult runPodSandbox(PodContext pod) {
        throw new CrigateException.InvalidArgument("annotation x is not a number");
      }
    };
    PluginChain chain = new PluginChain(List.of(broken));

    assertThatThrownBy(() -> chain.createContainer(POD, NEW)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("broken failed in CreateContainer").hasCauseInstanceOf(ArithmeticException.class);
    assertThatThrownBy(() -> chain.runPodSandbox(POD)).isInstanceOf(CrigateException.InvalidArgument.class);
  }

  @Test
  void aLoneAnswerIsPassedOnAsTheMergeWouldGiveIt() {
    PluginResult pin = new PluginResult(Adjustment.of(LinuxResources.builder().cpusetCpus("1").cpusetMems("0").build()),
        List.of(ContainerUpdate.of("c7", LinuxResources.builder().cpusetCpus("0").build())));
    PluginChain chain = new PluginChain(List.of(new Fixed("policy", pin), new Fixed("quiet", PluginResult.NONE)));

    // Nothing to merge it with: the answer itself, not a copy rebuilt field by field.
    assertThat(chain.createContainer(POD, NEW)).isSameAs(pin);
  }

  @Test
  void aLoneAnswerStillFailsWhenItSetsAFieldTwice() {
    PluginResult twice = PluginResult.update(List.of(ContainerUpdate.of("c7", LinuxResources.builder().cpuQuota(1).build()),
        ContainerUpdate.of("c7", LinuxResources.builder().cpuQuota(2).build())));
    PluginChain chain = new PluginChain(List.of(new Fixed("policy", twice)));

    assertThatThrownBy(() -> chain.createContainer(POD, NEW))
        .hasMessageContaining("policy sets cpu.quota twice in update of container c7");
  }

  @Test
  void namesMustBeUnique() {
    assertThatThrownBy(() -> new PluginChain(List.of(new Fixed("x", PluginResult.NONE), new Fixed("x", PluginResult.NONE))))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining("'x'");
  }

  @Test
  void fieldsRoundTrip() {
    Adjustment full = Adjustment.builder().oomScoreAdj(3).env("A", "1").annotation("k", "v")
        .resources(LinuxResources.builder().cpuShares(1).cpuQuota(2).cpuPeriod(3).cpusetCpus("0").cpusetMems("1")
            .memoryLimit(4).unified("memory.high", "9").build()).build();
    assertThat(Adjustment.fromFields(full.fields())).isEqualTo(full);
  }
}

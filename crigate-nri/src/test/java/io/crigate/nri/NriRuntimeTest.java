package io.crigate.nri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.crigate.api.nri.v1alpha1.Container;
import io.crigate.api.nri.v1alpha1.ContainerAdjustment;
import io.crigate.api.nri.v1alpha1.ContainerEviction;
import io.crigate.api.nri.v1alpha1.ContainerUpdate;
import io.crigate.api.nri.v1alpha1.CreateContainerResponse;
import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.api.nri.v1alpha1.KeyValue;
import io.crigate.api.nri.v1alpha1.LinuxCPU;
import io.crigate.api.nri.v1alpha1.LinuxContainerAdjustment;
import io.crigate.api.nri.v1alpha1.LinuxContainerUpdate;
import io.crigate.api.nri.v1alpha1.LinuxResources;
import io.crigate.api.nri.v1alpha1.OptionalInt64;
import io.crigate.api.nri.v1alpha1.OptionalUInt64;
import io.crigate.api.nri.v1alpha1.PodSandbox;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** crigate's NRI runtime hosting crigate's NRI plugin, over a real muxed unix socket. */
class NriRuntimeTest {

  private static final PodSandbox POD = PodSandbox.newBuilder().setId("pod-1").setName("web").setNamespace("default").build();
  private static final Container CTR = Container.newBuilder().setId("ctr-1").setPodSandboxId("pod-1").setName("app").build();

  @TempDir
  Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
  private final List<ContainerUpdate> applied = new CopyOnWriteArrayList<>();
  private final List<String> stopped = new CopyOnWriteArrayList<>();
  private NriRuntime.State state = new NriRuntime.State(List.of(), List.of());

  /** A plugin whose answers the test scripts. */
  private static final class Scripted implements NriHandler {
    final Set<Event> events;
    final BiFunction<PodSandbox, Container, CreateContainerResponse> create;
    final List<String> seen = new CopyOnWriteArrayList<>();
    volatile int syncedContainers = -1;
    volatile List<ContainerUpdate> syncAnswer = List.of();

    Scripted(Set<Event> events, BiFunction<PodSandbox, Container, CreateContainerResponse> create) {
      this.events = events;
      this.create = create;
    }

    @Override
    public Set<Event> events() {
      return events;
    }

    @Override
    public List<ContainerUpdate> synchronize(List<PodSandbox> pods, List<Container> containers) {
      syncedContainers = containers.size();
      return syncAnswer;
    }

    @Override
    public CreateContainerResponse createContainer(PodSandbox pod, Container container) {
      seen.add("CreateContainer " + container.getId());
      return create.apply(pod, container);
    }

    @Override
    public void observe(Event event, PodSandbox pod, Container container) {
      seen.add(event + " " + pod.getId());
    }
  }

  private static CreateContainerResponse env(String key, String value) {
    return CreateContainerResponse.newBuilder().setAdjust(ContainerAdjustment.newBuilder()
        .addEnv(KeyValue.newBuilder().setKey(key).setValue(value))).build();
  }

  private static CreateContainerResponse cpuQuota(long quota) {
    return CreateContainerResponse.newBuilder().setAdjust(ContainerAdjustment.newBuilder()
        .setLinux(LinuxContainerAdjustment.newBuilder().setResources(LinuxResources.newBuilder()
            .setCpu(LinuxCPU.newBuilder().setQuota(OptionalInt64.newBuilder().setValue(quota)))))).build();
  }

  private NriRuntime runtime(NriRuntime.Settings settings) throws Exception {
    NriRuntime r = new NriRuntime(settings, () -> state, updates -> {
      applied.addAll(updates);
      return List.of();
    }, (id, by, reason) -> stopped.add(id + " by " + by + " (" + reason + ")")).start();
    open.add(r);
    return r;
  }

  private NriRuntime runtime() throws Exception {
    return runtime(NriRuntime.Settings.defaults(dir.resolve("nri.sock")));
  }

  private NriPlugin plugin(String idx, String name, NriHandler handler) {
    NriPlugin p = new NriPlugin(new NriPlugin.Settings(name, idx, dir.resolve("nri.sock"), -1), handler).start();
    open.add(p);
    return p;
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
  }

  @Test
  void pluginsRunInIndexOrderAndTheirAdjustmentsMerge() throws Exception {
    NriRuntime runtime = runtime();
    plugin("20", "cpu", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> cpuQuota(50_000)));
    plugin("10", "env", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> env("INJECTED", "by-nri")));
    await().until(() -> runtime.plugins().size() == 2);
    assertThat(runtime.plugins()).containsExactly("10-env", "20-cpu");

    NriRuntime.Creation created = runtime.createContainer(POD, CTR);

    assertThat(created.adjustment().getEnvList()).containsExactly(KeyValue.newBuilder().setKey("INJECTED").setValue("by-nri").build());
    assertThat(created.adjustment().getLinux().getResources().getCpu().getQuota().getValue()).isEqualTo(50_000);
    assertThat(created.owners()).containsEntry("adjust.env[INJECTED]", "10-env")
        .containsEntry("adjust.linux.resources.cpu.quota", "20-cpu");
  }

  @Test
  void twoPluginsSettingOneFieldIsAnErrorNamingBoth() throws Exception {
    NriRuntime runtime = runtime();
    plugin("10", "a", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> env("X", "1")));
    plugin("20", "b", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> env("X", "2")));
    await().until(() -> runtime.plugins().size() == 2);

    assertThatThrownBy(() -> runtime.createContainer(POD, CTR)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("10-a").hasMessageContaining("20-b").hasMessageContaining("adjust.env[X]");
  }

  @Test
  void twoPluginsMountingAtOneContainerPathIsAnErrorNamingBothAndThePath() throws Exception {
    NriRuntime runtime = runtime();
    plugin("10", "a", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> mount("/lib/a.so", "/lib/x.so")));
    plugin("20", "b", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> mount("/lib/b.so", "/lib/x.so")));
    plugin("30", "c", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> mount("/tmp/lock", "/tmp/lock")));
    await().until(() -> runtime.plugins().size() == 3);

    assertThatThrownBy(() -> runtime.createContainer(POD, CTR)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessage("NRI plugins 10-a and 20-b both adjust adjust.mounts[/lib/x.so]");
  }

  private static CreateContainerResponse mount(String source, String destination) {
    return CreateContainerResponse.newBuilder().setAdjust(ContainerAdjustment.newBuilder()
        .addMounts(io.crigate.api.nri.v1alpha1.Mount.newBuilder().setSource(source).setDestination(destination)
            .setType("bind").addOptions("rbind"))).build();
  }

  @Test
  void onlySubscribedEventsAreDelivered() throws Exception {
    NriRuntime runtime = runtime();
    Scripted createOnly = new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> CreateContainerResponse.getDefaultInstance());
    Scripted podsOnly = new Scripted(Set.of(Event.RUN_POD_SANDBOX), (p, c) -> CreateContainerResponse.getDefaultInstance());
    plugin("10", "create", createOnly);
    plugin("20", "pods", podsOnly);
    await().until(() -> runtime.plugins().size() == 2);

    runtime.runPodSandbox(POD);
    runtime.createContainer(POD, CTR);

    assertThat(createOnly.seen).containsExactly("CreateContainer ctr-1");
    assertThat(podsOnly.seen).containsExactly("RUN_POD_SANDBOX pod-1");
  }

  @Test
  void anEmptyEventMaskSubscribesToEveryEvent() throws Exception {
    NriRuntime runtime = runtime();
    Scripted all = new Scripted(Set.of(), (p, c) -> CreateContainerResponse.getDefaultInstance());
    plugin("10", "all", all);
    await().until(() -> runtime.plugins().size() == 1);

    runtime.runPodSandbox(POD);
    runtime.createContainer(POD, CTR);

    assertThat(all.seen).containsExactly("RUN_POD_SANDBOX pod-1", "CreateContainer ctr-1");
  }

  @Test
  void aPluginThatTimesOutIsDroppedAndTheContainerGoesOn() throws Exception {
    NriRuntime runtime = runtime(new NriRuntime.Settings(dir.resolve("nri.sock"), Duration.ofMillis(300),
        Duration.ofSeconds(5), true, ""));
    plugin("10", "slow", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> {
      try {
        Thread.sleep(5_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      return env("LATE", "1");
    }));
    plugin("20", "fast", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> env("FAST", "1")));
    await().until(() -> runtime.plugins().size() == 2);

    NriRuntime.Creation created = runtime.createContainer(POD, CTR);

    assertThat(created.adjustment().getEnvList()).extracting(KeyValue::getKey).containsExactly("FAST");
    assertThat(runtime.plugins()).containsExactly("20-fast");
  }

  @Test
  void aPluginThatCrashesMidCallIsDroppedAndTheContainerGoesOn() throws Exception {
    NriRuntime runtime = runtime();
    java.util.concurrent.atomic.AtomicReference<NriPlugin> crashing = new java.util.concurrent.atomic.AtomicReference<>();
    crashing.set(plugin("10", "crashing", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> {
      crashing.get().close(); // the connection goes away before an answer is written
      return env("NEVER", "1");
    })));
    plugin("20", "fast", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> env("FAST", "1")));
    await().until(() -> runtime.plugins().size() == 2);

    NriRuntime.Creation created = runtime.createContainer(POD, CTR);

    assertThat(created.adjustment().getEnvList()).extracting(KeyValue::getKey).containsExactly("FAST");
    await().until(() -> runtime.plugins().equals(List.of("20-fast")));
  }

  @Test
  void aPluginErrorFailsTheRequestUnderTheDefaultPolicyAndIsSkippedWhenIgnored() throws Exception {
    NriRuntime strict = runtime();
    plugin("10", "broken", new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> {
      throw new IllegalStateException("no cpus left");
    }));
    await().until(() -> strict.plugins().size() == 1);
    assertThatThrownBy(() -> strict.createContainer(POD, CTR)).isInstanceOf(CrigateException.FailedPrecondition.class)
        .hasMessageContaining("10-broken").hasMessageContaining("no cpus left");
    strict.close();

    NriRuntime lenient = runtime(new NriRuntime.Settings(dir.resolve("nri2.sock"), Duration.ofSeconds(2),
        Duration.ofSeconds(5), false, ""));
    NriPlugin p = new NriPlugin(new NriPlugin.Settings("broken", "10", dir.resolve("nri2.sock"), -1),
        new Scripted(Set.of(Event.CREATE_CONTAINER), (pod, c) -> {
          throw new IllegalStateException("no cpus left");
        })).start();
    open.add(p);
    await().until(() -> lenient.plugins().size() == 1);
    assertThat(lenient.createContainer(POD, CTR).adjustment()).isEqualTo(ContainerAdjustment.getDefaultInstance());
  }

  @Test
  void synchronizeSendsLargeStatesInPartsAndAppliesTheAnswer() throws Exception {
    // 3000 containers of ~600 bytes each: ~1.8 MB, more than one 1 MiB part and far more than 4096-byte mux chunks
    List<Container> many = IntStream.range(0, 3000).mapToObj(i -> Container.newBuilder().setId("c-" + i)
        .setPodSandboxId("pod-1").putAnnotations("note", "x".repeat(560)).build()).toList();
    state = new NriRuntime.State(List.of(POD), many);
    NriRuntime runtime = runtime();
    Scripted handler = new Scripted(Set.of(Event.CREATE_CONTAINER), (p, c) -> CreateContainerResponse.getDefaultInstance());
    ContainerUpdate update = ContainerUpdate.newBuilder().setContainerId("c-7").setLinux(LinuxContainerUpdate.newBuilder()
        .setResources(LinuxResources.newBuilder().setCpu(LinuxCPU.newBuilder().setCpus("0")))).build();
    handler.syncAnswer = List.of(update);
    plugin("10", "sync", handler);
    await().until(() -> runtime.plugins().size() == 1);

    assertThat(handler.syncedContainers).isEqualTo(3000);
    assertThat(applied).containsExactly(update);
  }

  @Test
  void unsolicitedUpdatesFromAPluginReachTheRuntime() throws Exception {
    NriRuntime runtime = runtime();
    NriPlugin p = plugin("10", "updater", new Scripted(Set.of(Event.CREATE_CONTAINER), (pod, c) -> CreateContainerResponse.getDefaultInstance()));
    await().until(() -> runtime.plugins().size() == 1);
    ContainerUpdate update = ContainerUpdate.newBuilder().setContainerId("ctr-1").build();

    assertThat(p.updateContainers(List.of(update), List.of())).isEmpty();
    assertThat(applied).containsExactly(update);
  }

  @Test
  void evictionsUnsolicitedOrInAnAnswerStopTheContainers() throws Exception {
    NriRuntime runtime = runtime();
    NriPlugin p = plugin("10", "evictor", new Scripted(Set.of(Event.CREATE_CONTAINER), (pod, c) ->
        CreateContainerResponse.newBuilder().addEvict(ContainerEviction.newBuilder().setContainerId("ctr-0")
            .setReason("make room")).build()));
    await().until(() -> runtime.plugins().size() == 1);

    assertThat(p.updateContainers(List.of(), List.of(ContainerEviction.newBuilder().setContainerId("ctr-9")
        .setReason("memory pressure").build()))).isEmpty();
    runtime.createContainer(POD, CTR);

    assertThat(stopped).containsExactly("ctr-9 by NRI plugin 10-evictor (memory pressure)",
        "ctr-0 by NRI plugin 10-evictor (make room)");
  }

  @Test
  void updatePodSandboxReachesSubscribedPluginsInIndexOrderWithTheResources() throws Exception {
    NriRuntime runtime = runtime();
    List<String> calls = new CopyOnWriteArrayList<>();
    record PodUpdates(String name, List<String> calls) implements NriHandler {
      @Override
      public Set<Event> events() {
        return Set.of(Event.UPDATE_POD_SANDBOX, Event.POST_UPDATE_POD_SANDBOX);
      }

      @Override
      public void updatePodSandbox(PodSandbox pod, LinuxResources overhead, LinuxResources resources) {
        calls.add("%s UpdatePodSandbox %s shares=%d".formatted(name, pod.getId(), resources.getCpu().getShares().getValue()));
      }

      @Override
      public void observe(Event event, PodSandbox pod, Container container) {
        calls.add(name + " " + event + " " + pod.getId());
      }
    }
    plugin("20", "b", new PodUpdates("b", calls));
    plugin("10", "a", new PodUpdates("a", calls));
    Scripted unsubscribed = new Scripted(Set.of(Event.CREATE_CONTAINER), (pod, c) -> CreateContainerResponse.getDefaultInstance());
    plugin("05", "c", unsubscribed);
    await().until(() -> runtime.plugins().size() == 3);

    runtime.updatePodSandbox(POD, LinuxResources.getDefaultInstance(), LinuxResources.newBuilder()
        .setCpu(LinuxCPU.newBuilder().setShares(OptionalUInt64.newBuilder().setValue(2048))).build());
    runtime.postUpdatePodSandbox(POD);

    assertThat(calls).containsExactly("a UpdatePodSandbox pod-1 shares=2048", "b UpdatePodSandbox pod-1 shares=2048",
        "a POST_UPDATE_POD_SANDBOX pod-1", "b POST_UPDATE_POD_SANDBOX pod-1");
    assertThat(unsubscribed.seen).isEmpty();
  }

  @Test
  void thePluginIsBuiltFromTheConfigurationInConfigureAndABadOneFailsItSoThePluginIsDropped() throws Exception {
    NriRuntime good = runtime(new NriRuntime.Settings(dir.resolve("nri.sock"), Duration.ofSeconds(2), Duration.ofSeconds(5),
        true, "env: FROM_CONFIG"));
    List<String> rejected = new CopyOnWriteArrayList<>();
    ConfiguredHandler fromConfig = config -> {
      if (!config.startsWith("env: ")) {
        rejected.add(config);
        throw new CrigateException.InvalidArgument("env: missing in '%s'".formatted(config));
      }
      return new Scripted(Set.of(Event.CREATE_CONTAINER), (pod, c) -> env(config.substring("env: ".length()), "1"));
    };
    NriPlugin p = new NriPlugin(new NriPlugin.Settings("configured", "10", dir.resolve("nri.sock"), -1), fromConfig).start();
    open.add(p);
    await().until(() -> good.plugins().size() == 1);
    assertThat(good.createContainer(POD, CTR).adjustment().getEnvList()).extracting(KeyValue::getKey)
        .containsExactly("FROM_CONFIG");
    good.close();

    NriRuntime bad = runtime(new NriRuntime.Settings(dir.resolve("nri.sock"), Duration.ofSeconds(2), Duration.ofSeconds(5),
        true, "nonsense"));
    // Configure fails with the handler's error; the runtime drops the plugin, which reconnects and fails again
    await().atMost(Duration.ofSeconds(20)).until(() -> rejected.size() >= 2);
    assertThat(rejected).allMatch("nonsense"::equals);
    assertThat(bad.plugins()).isEmpty();
  }

  @Test
  void thePluginReconnectsWhenTheRuntimeRestarts() throws Exception {
    NriRuntime first = runtime();
    NriPlugin p = plugin("10", "steady", new Scripted(Set.of(Event.CREATE_CONTAINER), (pod, c) -> env("A", "1")));
    await().until(() -> first.plugins().size() == 1);
    first.close();

    NriRuntime second = runtime();
    await().atMost(Duration.ofSeconds(20)).until(() -> second.plugins().size() == 1);
    assertThat(second.createContainer(POD, CTR).adjustment().getEnvList()).extracting(KeyValue::getKey).containsExactly("A");
    assertThat(p.stopped()).isNotDone();
  }

  @Test
  void environmentSelectsAnInheritedDescriptorOrASocketPath() {
    // NRI_PLUGIN_SOCKET=3 is a file descriptor a runtime handed over; anything else is a path
    NriPlugin.Settings inherited = NriPlugin.Settings.fromEnvironment(
        Map.of("NRI_PLUGIN_NAME", "crigate", "NRI_PLUGIN_IDX", "05", "NRI_PLUGIN_SOCKET", "3"), "x", "99", NriPlugin.DEFAULT_SOCKET);
    assertThat(inherited).isEqualTo(new NriPlugin.Settings("crigate", "05", NriPlugin.DEFAULT_SOCKET, 3));
    NriPlugin.Settings byPath = NriPlugin.Settings.fromEnvironment(Map.of("NRI_PLUGIN_SOCKET", "/run/x.sock"), "crigate", "50",
        NriPlugin.DEFAULT_SOCKET);
    assertThat(byPath).isEqualTo(new NriPlugin.Settings("crigate", "50", Path.of("/run/x.sock"), -1));
    assertThat(NriPlugin.Settings.fromEnvironment(Map.of(), "crigate", "50", NriPlugin.DEFAULT_SOCKET).socket())
        .isEqualTo(Path.of("/var/run/nri/nri.sock"));
  }

  @Test
  void eventMaskBitIsOneShiftedByEventMinusOne() {
    // RUN_POD_SANDBOX = 1 -> bit 0 (1); CREATE_CONTAINER = 4 -> bit 3 (8); together 9
    assertThat(Events.mask(Set.of(Event.RUN_POD_SANDBOX, Event.CREATE_CONTAINER))).isEqualTo(9);
    assertThat(Events.of(9)).containsExactlyInAnyOrder(Event.RUN_POD_SANDBOX, Event.CREATE_CONTAINER);
  }
}

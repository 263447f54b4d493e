package io.crigate.it;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.api.nri.v1alpha1.Event;
import io.crigate.testsupport.GoNriPeers;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/crigate nri-plugin} started as a pre-installed plugin, the way containerd and CRI-O
 * start {@code /opt/nri/plugins/IDX-NAME}: a Go runtime (containerd's Go ttrpc) creates a socketpair,
 * starts the plugin file with one end as its fd 3 and nothing in its environment but
 * {@code NRI_PLUGIN_NAME}, {@code NRI_PLUGIN_IDX} and {@code NRI_PLUGIN_SOCKET=3}, and drives it over
 * the other end through Register, Configure, a two-part Synchronize, CreateContainer and
 * UpdatePodSandbox. crigate's configuration is the plugin's drop-in, {@code IDX-NAME.conf} in the
 * runtime's plugin config dir, which the runtime reads and passes in Configure; the plugin file is a
 * wrapper only because a runtime passes no arguments ({@code nri-plugin} and a state dir).
 */
class NriLaunchedPluginIT {

  @TempDir
  Path dir;

  @Test
  void aRuntimeLaunchesCrigateWithTheConnectionOnFd3AndItsHooksFromTheDropInAnswer() throws Exception {
    dropIn("""
        hooks:
          mode: nri
          GPUEnvInject: {order: 400, failurePolicy: fail-closed, enabled: true}
        """);
    Launched run = launch();

    List<String> lines = run.lines();
    assertThat(lines).as(run.log()).hasSize(7);
    assertThat(lines.get(0)).isEqualTo("registered 42-gpuhooks nri=v0.12.2");
    int mask = Integer.parseInt(lines.get(1).substring("events ".length()));
    assertThat(mask & (1 << (Event.CREATE_CONTAINER_VALUE - 1))).as("CreateContainer subscribed, mask " + mask).isNotZero();
    // the GPU hook turns the pod's koordinator allocation (minor 1) into NVIDIA_VISIBLE_DEVICES
    assertThat(lines.subList(2, 7)).containsExactly(
        "sync-part more=true updates=0",
        "sync-done updates=0",
        "env NVIDIA_VISIBLE_DEVICES=1",
        "update-pod-sandbox answered",
        // the runtime closed the connection: a launched plugin exits rather than reconnect
        "plugin exited 0");
  }

  @Test
  void aBadDropInFailsConfigureNamingTheFieldAndThePluginIsDropped() throws Exception {
    dropIn("""
        hooks:
          mode: nri
          GPUEnvInject: {order: 400, failurePolicy: sometimes, enabled: true}
        """);
    Launched run = launch();

    assertThat(run.lines()).as(run.log()).hasSize(3);
    assertThat(run.lines().get(0)).isEqualTo("registered 42-gpuhooks nri=v0.12.2");
    assertThat(run.lines().get(1)).startsWith("configure-failed ").contains("InvalidArgument")
        .contains("hooks.GPUEnvInject.failurePolicy: unknown failurePolicy 'sometimes'");
    // dropped: the runtime closed the connection, so the launched plugin exits
    assertThat(run.lines().get(2)).isEqualTo("plugin exited 0");
  }

  /** The plugin's drop-in where containerd's plugin_config_path keeps it: IDX-NAME.conf. */
  private void dropIn(String yaml) throws Exception {
    Files.writeString(Files.createDirectories(dir.resolve("conf.d")).resolve("42-gpuhooks.conf"), yaml);
  }

  record Launched(List<String> lines, String log) {}

  /** The Go runtime launches the plugin file {@code 42-gpuhooks} with the drop-in dir, drives it and closes it. */
  private Launched launch() throws Exception {
    Path runtime = GoNriPeers.in(Path.of("target/go-nri")).build("nriruntime");
    // the name and index come from the file name, through the environment: not crigate's defaults (50-crigate)
    Path pluginFile = Files.createDirectories(dir.resolve("plugins")).resolve("42-gpuhooks");
    Files.writeString(pluginFile, "#!/bin/sh\nexec %s nri-plugin --state-dir %s\n"
        .formatted(Infra.repositoryRoot().resolve("bin/crigate"), dir.resolve("state")));
    Files.setPosixFilePermissions(pluginFile, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path stderr = dir.resolve("runtime.log");

    Process go = new ProcessBuilder(runtime.toString(), "-launch", pluginFile.toString(),
        "-config-dir", dir.resolve("conf.d").toString()).redirectError(stderr.toFile()).start();
    String out = new String(go.getInputStream().readAllBytes(), UTF_8);
    assertThat(go.waitFor(3, TimeUnit.MINUTES)).as("Go runtime finished").isTrue();
    String log = Files.readString(stderr);
    assertThat(go.exitValue()).as(out + log).isZero();
    return new Launched(out.lines().toList(), out + log);
  }
}

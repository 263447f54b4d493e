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
 * UpdatePodSandbox. The plugin file is a wrapper that passes crigate its configuration, since a
 * runtime passes no arguments.
 */
class NriLaunchedPluginIT {

  @TempDir
  Path dir;

  @Test
  void aRuntimeLaunchesCrigateWithTheConnectionOnFd3AndItsHooksAnswer() throws Exception {
    Path runtime = GoNriPeers.in(Path.of("target/go-nri")).build("nriruntime");
    Path config = Files.writeString(dir.resolve("crigate.yaml"), """
        hooks:
          mode: nri
          GPUEnvInject: {order: 400, failurePolicy: fail-closed, enabled: true}
        """);
    // the name and index come from the file name, through the environment: not crigate's defaults (50-crigate)
    Path pluginFile = Files.createDirectories(dir.resolve("plugins")).resolve("42-gpuhooks");
    Files.writeString(pluginFile, "#!/bin/sh\nexec %s nri-plugin --config %s --state-dir %s\n"
        .formatted(Infra.repositoryRoot().resolve("bin/crigate"), config, dir.resolve("state")));
    Files.setPosixFilePermissions(pluginFile, PosixFilePermissions.fromString("rwxr-xr-x"));
    Path stderr = dir.resolve("runtime.log");

    Process go = new ProcessBuilder(runtime.toString(), "-launch", pluginFile.toString())
        .redirectError(stderr.toFile()).start();
    String out = new String(go.getInputStream().readAllBytes(), UTF_8);
    assertThat(go.waitFor(3, TimeUnit.MINUTES)).as("Go runtime finished").isTrue();
    String log = Files.readString(stderr);
    assertThat(go.exitValue()).as(out + log).isZero();

    List<String> lines = out.lines().toList();
    assertThat(lines).as(log).hasSize(7);
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
}

package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.PullImageRequest;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The shared work dir: who owns what crigate makes there, and what a share crigate cannot write gives. */
class SharedWorkDirTest {

  @TempDir Path tmp;

  @Test
  void aWorkDirThatCannotBeWrittenIsUnavailableAndLeavesNoPod() throws Exception {
    // a work dir below a regular file fails exactly as an unmounted or read-only share does: at mkdir
    Path notADirectory = Files.writeString(tmp.resolve("not-a-directory"), "");
    try (FakeSlurmBackends fake = new FakeSlurmBackends(tmp)) {
      SlurmBackend backend = fake.open(FakeSlurmBackends.settings(notADirectory.resolve("work").toString()));

      assertThatThrownBy(() -> backend.runPodSandbox(RunPodSandboxRequest.newBuilder()
          .setConfig(SlurmCluster.pod("pod", tmp.resolve("logs"), Map.of())).build()))
          .isInstanceOf(CrigateException.Unavailable.class)
          .hasMessageContaining("shared work dir").hasMessageContaining(notADirectory.toString());
      assertThat(backend.listPodSandbox(ListPodSandboxRequest.getDefaultInstance()).getItemsList()).isEmpty();
    }
  }

  /**
   * Over SSH (and slurmrestd) the backend's jobs run as the login user, and Slurm opens their
   * output in the container's directory as that user: a directory left to crigate's user made every
   * job of a non-root login fail at its start ("Could not open stdout file: Permission denied").
   */
  @Test
  void aContainerDirectoryBelongsToTheUserTheBackendsJobsRunAs() throws Exception {
    Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "only root can hand a directory to another user");
    Path knownHosts = Files.writeString(tmp.resolve("known_hosts"), "");
    try (FakeSlurmBackends fake = new FakeSlurmBackends(tmp)) {
      var settings = FakeSlurmBackends.settings(tmp.resolve("work").toString()).put("transport", "ssh");
      settings.putObject("ssh").put("host", "login.example").put("user", "nobody")
          .put("password", "unused: the fake cluster needs no login").put("knownHostsFile", knownHosts.toString());
      SlurmBackend backend = fake.open(settings);

      String[] ids = fake.create(backend, "c", List.of("true"));

      Path container = tmp.resolve("work").resolve(ids[0]).resolve(ids[1]);
      assertThat(Files.getOwner(container).getName()).isEqualTo("nobody");
      assertThat(Files.getOwner(container.getParent()).getName()).as("the pod's directory stays crigate's").isEqualTo("root");
    }
  }

  /** apptainer and enroot write the pulled image file into {@code <workDir>/.images} and make no missing parent. */
  @Test
  void aPullMakesTheImageDirectoryForTheUserThePullsRunAs() throws Exception {
    Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "only root can hand a directory to another user");
    Path knownHosts = Files.writeString(tmp.resolve("known_hosts"), "");
    try (FakeSlurmBackends fake = new FakeSlurmBackends(tmp)) {
      var settings = FakeSlurmBackends.settings(tmp.resolve("work").toString()).put("transport", "ssh").put("runner", "apptainer");
      settings.putObject("ssh").put("host", "login.example").put("user", "nobody")
          .put("password", "unused: the fake cluster needs no login").put("knownHostsFile", knownHosts.toString());
      SlurmBackend backend = fake.open(settings);

      backend.pullImage(PullImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage("busybox")).build());

      Path images = tmp.resolve("work/.images");
      assertThat(images).isDirectory();
      assertThat(Files.getOwner(images).getName()).isEqualTo("nobody");
    }
  }

  @Test
  void aLocalBackendsContainerDirectoryStaysCrigates() throws Exception {
    try (FakeSlurmBackends fake = new FakeSlurmBackends(tmp)) {
      SlurmBackend backend = fake.open();

      String[] ids = fake.create(backend, "c", List.of("true"));

      Path container = tmp.resolve("work").resolve(ids[0]).resolve(ids[1]);
      assertThat(Files.getOwner(container).getName()).isEqualTo(System.getProperty("user.name"));
    }
  }
}

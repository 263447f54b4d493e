package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.api.cri.v1.ListPodSandboxRequest;
import io.crigate.api.cri.v1.RunPodSandboxRequest;
import io.crigate.spi.CrigateException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A shared file system crigate cannot write is the cluster's storage out of reach: UNAVAILABLE, not INTERNAL. */
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
}

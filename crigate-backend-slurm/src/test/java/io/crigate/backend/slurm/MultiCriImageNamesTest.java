package io.crigate.backend.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** multi-cri's image names, each as its README writes it (seed 000, "Image specification" and the job examples). */
class MultiCriImageNamesTest {

  @ParameterizedTest(name = "{0} -> {1}")
  @CsvSource({
      // "Slurm simple batch job with volume" and "MPI Slurm Job specification without NFS volume"
      "multicri/docker.perl.img:latest, perl.img:latest",
      "multicri/docker.perl:latest, perl:latest",
      // "Docker repository": docker-repository.perl is docker://perl
      "docker-repository.perl, perl",
      "multicri/docker-repository.perl, perl",
      // "image: multicri/perl", the RuntimeClass prefix alone
      "multicri/perl, perl",
      // ordinary references are left alone, a Docker Hub user called docker included
      "docker.io/library/perl:5, docker.io/library/perl:5",
      "perl, perl",
      "/home/u/multi-cri/nfs-vol1/perl.img, /home/u/multi-cri/nfs-vol1/perl.img"})
  void readmeNamesBecomeTheReferencesCrigatesRunnersTake(String multiCri, String crigate) {
    assertThat(MultiCriImageNames.resolve(multiCri)).isEqualTo(crigate);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
      // "Singularity repository", as the README spells it and as it means it
      "sigularity-repository.jorgesece/singularity-nginx:latest | shub://jorgesece/singularity-nginx: crigate does not pull from Singularity Hub",
      "multicri/singularity-repository.jorgesece/singularity-nginx:latest | give the image's registry reference instead",
      // "Local images"
      "local-image.perl.img | crigate takes the image file's absolute path on the cluster instead (e.g. $HOME/<CRI_SLURM_MOUNT_PATH>/<claim>/perl.img)"})
  void namesCrigateCannotFetchAreRefusedNamingItsEquivalent(String multiCri, String message) {
    assertThatThrownBy(() -> MultiCriImageNames.resolve(multiCri))
        .isInstanceOf(CrigateException.InvalidArgument.class).hasMessageContaining(multiCri).hasMessageContaining(message);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"APPTAINER", "SINGULARITY", "ENROOT", "PODMAN"})
  void everyRunnerPullsAndRunsTheTranslatedName(ImageRunner runner) {
    assertThat(runner.pullCommand("multicri/docker.perl:latest", Path.of("/i"))).last().asString().endsWith("perl:latest")
        .doesNotContain("multicri");
    assertThat(runner.command("multicri/docker.perl:latest", "cid", List.of("ls", "/"), ""))
        .noneMatch(word -> word.contains("multicri")).anyMatch(word -> word.endsWith("perl:latest"));
    assertThatThrownBy(() -> runner.command("local-image.perl.img", "cid", List.of("ls"), ""))
        .isInstanceOf(CrigateException.InvalidArgument.class);
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({"local-image.perl.img", "sigularity-repository.jorgesece/singularity-nginx:latest"})
  void runnerNoneIgnoresTheImageAsItIgnoresEveryImage(String image) {
    assertThat(ImageRunner.NONE.command(image, "cid", List.of("ls", "/"), "")).containsExactly("ls", "/");
    assertThat(ImageRunner.NONE.pullCommand(image, Path.of("/i"))).isEmpty();
  }
}

package io.crigate.interlink.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.crigate.interlink.TestPods;
import io.crigate.interlink.wire.RetrievedContainer;
import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.SecretBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A pod's volumes belong to the user the backend's containers run as: a Slurm backend logged in as
 * a cluster account runs its jobs as that account, which must write its emptyDir and read its
 * Secret (0600 by default), as a container's user can under a kubelet.
 */
class VolumeFilesTest {

  @TempDir Path root;

  private static Pod pod() {
    return new PodBuilder(TestPods.shell("vol", "true")).editSpec()
        .addNewVolume().withName("scratch").withNewEmptyDir().endEmptyDir().endVolume()
        .addNewVolume().withName("creds").withNewSecret().withSecretName("db").endSecret().endVolume()
        .addNewVolume().withName("config").withNewConfigMap().withName("app")
        .addNewItem().withKey("app.yaml").withPath("conf/app.yaml").endItem().endConfigMap().endVolume()
        .endSpec().build();
  }

  private static List<RetrievedContainer> data() {
    return List.of(new RetrievedContainer("main",
        List.of(new ConfigMapBuilder().withNewMetadata().withName("app").endMetadata().addToData("app.yaml", "a: 1").build()),
        List.of(),
        List.of(new SecretBuilder().withNewMetadata().withName("db").endMetadata().addToStringData("password", "s3cret").build()),
        null));
  }

  private static String owner(Path path) throws Exception {
    return Files.getOwner(path).getName();
  }

  @Test
  void everyVolumeDirectoryAndFileIsHandedToTheUserTheContainersRunAs() throws Exception {
    Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "only root can hand a file to another user");
    Pod pod = pod();

    new VolumeFiles(root, Optional.of("nobody")).materialise(pod, data());

    Path podDir = root.resolve(pod.getMetadata().getUid());
    assertThat(owner(podDir.resolve("scratch"))).isEqualTo("nobody");
    assertThat(owner(podDir.resolve("creds"))).isEqualTo("nobody");
    Path secret = podDir.resolve("creds/password");
    assertThat(owner(secret)).isEqualTo("nobody");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(secret))).isEqualTo("rw-------");
    assertThat(owner(podDir.resolve("config/conf"))).isEqualTo("nobody");
    assertThat(owner(podDir.resolve("config/conf/app.yaml"))).isEqualTo("nobody");
    assertThat(owner(podDir)).as("the pod's own directory stays crigate's").isEqualTo("root");
  }

  @Test
  void aProjectedFileRewrittenInPlaceStaysTheUsers() throws Exception {
    Assumptions.assumeTrue("root".equals(System.getProperty("user.name")), "only root can hand a file to another user");
    Pod pod = new PodBuilder(TestPods.shell("vol", "true")).editSpec()
        .addNewVolume().withName("token").withNewProjected().endProjected().endVolume().endSpec().build();
    VolumeFiles volumes = new VolumeFiles(root, Optional.of("nobody"));
    volumes.materialise(pod, projected("first"));

    volumes.refresh(pod, projected("second"));

    Path token = root.resolve(pod.getMetadata().getUid()).resolve("token/token");
    assertThat(Files.readString(token)).isEqualTo("second");
    assertThat(owner(token)).isEqualTo("nobody");
  }

  private static List<RetrievedContainer> projected(String token) {
    return List.of(new RetrievedContainer("main", List.of(),
        List.of(new ConfigMapBuilder().withNewMetadata().withName("token").endMetadata().addToData("token", token).build()),
        List.of(), null));
  }

  @Test
  void withoutAWorkloadUserTheFilesStayCrigates() throws Exception {
    Pod pod = pod();

    new VolumeFiles(root, Optional.empty()).materialise(pod, data());

    Path secret = root.resolve(pod.getMetadata().getUid()).resolve("creds/password");
    assertThat(Files.readString(secret)).isEqualTo("s3cret");
    assertThat(owner(secret)).isEqualTo(System.getProperty("user.name"));
  }

  @Test
  void aUserUnknownOnThisNodeLeavesTheFilesCrigatesAndStillWritesThem() throws Exception {
    Pod pod = pod();

    new VolumeFiles(root, Optional.of("no-such-user-here")).materialise(pod, data());

    Path secret = root.resolve(pod.getMetadata().getUid()).resolve("creds/password");
    assertThat(Files.readString(secret)).isEqualTo("s3cret");
    assertThat(owner(secret)).isEqualTo(System.getProperty("user.name"));
  }
}

package io.crigate.backend.slurm;

import io.crigate.api.cri.v1.FilesystemIdentifier;
import io.crigate.api.cri.v1.FilesystemUsage;
import io.crigate.api.cri.v1.Image;
import io.crigate.api.cri.v1.ImageFsInfoResponse;
import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.ImageStatusResponse;
import io.crigate.api.cri.v1.ListImagesResponse;
import io.crigate.api.cri.v1.PullImageResponse;
import io.crigate.api.cri.v1.RemoveImageResponse;
import io.crigate.api.cri.v1.UInt64Value;
import io.crigate.spi.CrigateException;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The images this backend's runner has fetched onto the cluster. PullImage delegates to the
 * runner (apptainer pull, enroot import, podman pull); with runner {@code none} a pull only
 * records the name, because the job runs on the node and never opens the image.
 */
final class ImageCatalog {

  private final ImageRunner runner;
  private final SlurmClient client;
  private final RecordStore records;
  private final Path imageDir;
  /** Who the pulls run as over SSH: the directory they write their image files into must be theirs. */
  private final Optional<String> jobUser;
  private final Clock clock;
  private final Map<String, Records.Image> images = new ConcurrentHashMap<>();

  ImageCatalog(ImageRunner runner, SlurmClient client, RecordStore records, Path imageDir, Optional<String> jobUser,
      Clock clock) {
    this.runner = runner;
    this.client = client;
    this.records = records;
    this.imageDir = imageDir;
    this.jobUser = jobUser;
    this.clock = clock;
    images.putAll(records.images());
  }

  PullImageResponse pull(ImageSpec spec) {
    String ref = spec.getImage();
    if (ref.isBlank()) {
      throw new CrigateException.InvalidArgument("PullImage needs an image name");
    }
    List<String> command = runner.pullCommand(ref, imageDir);
    if (!command.isEmpty()) {
      // apptainer and enroot write the image file into the directory but create no missing parent
      SandboxDirectory.create(imageDir);
      jobUser.ifPresent(user -> SandboxDirectory.giveTo(imageDir, user));
      client.runOnCluster(command).ifPresent(result -> {
        if (!result.ok()) {
          throw new CrigateException.FailedPrecondition("pulling image %s with %s failed (exit %d): %s"
              .formatted(ref, command.getFirst(), result.exitCode(), result.err()));
        }
      });
    }
    Records.Image image = new Records.Image(ref, clock.millis());
    records.put(image);
    images.put(ref, image);
    return PullImageResponse.newBuilder().setImageRef(ref).build();
  }

  ListImagesResponse list() {
    ListImagesResponse.Builder response = ListImagesResponse.newBuilder();
    images.values().forEach(image -> response.addImages(proto(image)));
    return response.build();
  }

  ImageStatusResponse status(ImageSpec spec) {
    ImageStatusResponse.Builder response = ImageStatusResponse.newBuilder();
    find(spec.getImage()).ifPresent(image -> response.setImage(proto(image)));
    return response.build();
  }

  RemoveImageResponse remove(ImageSpec spec) {
    find(spec.getImage()).ifPresent(image -> {
      records.removeImage(image.ref());
      images.remove(image.ref());
    });
    return RemoveImageResponse.getDefaultInstance();
  }

  ImageFsInfoResponse fsInfo() {
    FilesystemUsage usage = FilesystemUsage.newBuilder()
        .setTimestamp(clock.millis() * 1_000_000)
        .setFsId(FilesystemIdentifier.newBuilder().setMountpoint(imageDir.toString()))
        .setUsedBytes(UInt64Value.newBuilder().setValue(0))
        .build();
    return ImageFsInfoResponse.newBuilder().addImageFilesystems(usage).build();
  }

  /** Images are known by the name they were pulled with; the kubelet may also ask by that as id. */
  private Optional<Records.Image> find(String ref) {
    return Optional.ofNullable(images.get(ref));
  }

  private static Image proto(Records.Image image) {
    return Image.newBuilder().setId(image.ref()).addRepoTags(image.ref())
        .setSpec(ImageSpec.newBuilder().setImage(image.ref())).build();
  }
}

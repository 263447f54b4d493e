package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.Image;
import io.crigate.api.cri.v1.ListImagesRequest;
import io.crigate.api.cri.v1.ListImagesResponse;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

@Command(name = "images", description = "List images, one row per tag.")
final class ImagesCommand extends CriAction {

  private static final String NONE = "<none>";

  @Mixin ListOptions list;

  @Parameters(
      arity = "0..1",
      paramLabel = "IMAGE",
      description = "Only this image: repository, repository:tag or id prefix.")
  String wanted;

  @Override
  int run(CriSession cri) {
    List<Image> images =
        cri.images().listImages(ListImagesRequest.getDefaultInstance()).getImagesList().stream()
            .filter(image -> wanted == null || matches(image, wanted))
            .toList();
    list.print(
        images,
        Image::getId,
        () -> table(images, list.noTrunc),
        () -> ListImagesResponse.newBuilder().addAllImages(images),
        out());
    return 0;
  }

  static boolean matches(Image image, String wanted) {
    return image.getId().startsWith(wanted)
        || image.getId().startsWith("sha256:" + wanted)
        || image.getRepoTagsList().stream()
            .anyMatch(tag -> tag.equals(wanted) || RepoTag.of(tag).repository().equals(wanted))
        || image.getRepoDigestsList().contains(wanted);
  }

  static Table table(List<Image> images, boolean fullIds) {
    Table table = new Table("IMAGE", "TAG", "IMAGE ID", "SIZE");
    for (Image image : images) {
      String id = HumanUnits.id(image.getId(), fullIds);
      String size = HumanUnits.size(image.getSize());
      if (image.getRepoTagsCount() == 0) {
        String repository =
            image.getRepoDigestsCount() == 0
                ? NONE
                : RepoTag.of(image.getRepoDigests(0)).repository();
        table.row(repository, NONE, id, size);
      }
      for (String tag : image.getRepoTagsList()) {
        RepoTag parsed = RepoTag.of(tag);
        table.row(parsed.repository(), parsed.tag(), id, size);
      }
    }
    return table;
  }

  /** {@code host:5000/repo:tag} split at the tag's colon, not the port's; digests have no tag. */
  record RepoTag(String repository, String tag) {
    static RepoTag of(String reference) {
      int digest = reference.indexOf('@');
      if (digest >= 0) {
        return new RepoTag(reference.substring(0, digest), NONE);
      }
      int colon = reference.lastIndexOf(':');
      if (colon > reference.lastIndexOf('/')) {
        return new RepoTag(reference.substring(0, colon), reference.substring(colon + 1));
      }
      return new RepoTag(reference, NONE);
    }
  }
}

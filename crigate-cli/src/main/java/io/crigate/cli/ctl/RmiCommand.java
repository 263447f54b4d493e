package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ImageSpec;
import io.crigate.api.cri.v1.RemoveImageRequest;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "rmi", description = "Remove images by name, reference or id.")
final class RmiCommand extends CriAction {

  @Parameters(arity = "1..*", paramLabel = "IMAGE", description = "Images to remove.")
  List<String> images;

  @Override
  int run(CriSession cri) {
    for (String image : images) {
      // Remove by id so every tag of the image goes, as crictl does.
      String id = ImageLookup.status(cri, image, false).getImage().getId();
      cri.images()
          .removeImage(
              RemoveImageRequest.newBuilder().setImage(ImageSpec.newBuilder().setImage(id)).build());
      out().println("Deleted: " + image);
    }
    return 0;
  }
}

package io.crigate.cli.ctl;

import io.crigate.api.cri.v1.ImageFsInfoRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

@Command(name = "imagefsinfo", description = "Show the image and container filesystems' usage.")
final class ImageFsInfoCommand extends CriAction {

  @Mixin DocumentOptions options;

  @Override
  int run(CriSession cri) {
    options.output.write(
        ProtoDocuments.tree(cri.images().imageFsInfo(ImageFsInfoRequest.getDefaultInstance())),
        out());
    return 0;
  }
}

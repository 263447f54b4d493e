package io.crigate.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import io.crigate.api.cri.v1.ImageStatusResponse;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(name = "inspecti", description = "Show the status of images (verbose).")
final class InspectiCommand extends InspectAction {

  @Parameters(arity = "1..*", paramLabel = "IMAGE", description = "Image names, references or ids.")
  List<String> images;

  @Override
  List<String> targets() {
    return images;
  }

  @Override
  JsonNode document(CriSession cri, String image) {
    ImageStatusResponse status = ImageLookup.status(cri, image, true);
    return ProtoDocuments.withInfo(status, status.getInfoMap());
  }
}

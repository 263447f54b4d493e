package io.crigate.cli.ctl;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import picocli.CommandLine.Mixin;

/** An inspect command: one verbose status document per named object, in argument order. */
abstract class InspectAction extends CriAction {

  @Mixin DocumentOptions options;

  /** What the user named: ids, prefixes or image names. */
  abstract List<String> targets();

  abstract JsonNode document(CriSession cri, String target);

  @Override
  final int run(CriSession cri) {
    for (String target : targets()) {
      options.output.write(document(cri, target), out());
    }
    return 0;
  }
}

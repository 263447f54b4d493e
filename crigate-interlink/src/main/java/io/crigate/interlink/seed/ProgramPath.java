package io.crigate.interlink.seed;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/** Which file a program name runs, as a shell looks it up in PATH. */
final class ProgramPath {

  private ProgramPath() {}

  static Optional<Path> find(String program, String pathVariable) {
    for (String dir : pathVariable.split(Pattern.quote(java.io.File.pathSeparator))) {
      if (!dir.isEmpty()) {
        Path candidate = Path.of(dir, program);
        if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
          return Optional.of(candidate);
        }
      }
    }
    return Optional.empty();
  }

  /** Both name one file (through links); a path that does not exist is not the program. */
  static boolean same(Path a, Path b) {
    try {
      return Files.exists(a) && Files.isSameFile(a, b);
    } catch (IOException e) {
      return false;
    }
  }
}

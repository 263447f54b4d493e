package io.crigate.backend.slurm;

import io.crigate.spi.CrigateException;
import java.util.ArrayList;
import java.util.List;

/**
 * Splits an annotation's text into words the way a shell would read it on a {@code #SBATCH} line,
 * which is where interLink's and KNoC's Slurm plugins put {@code slurm-job.*.io/flags}: so
 * {@code --gres="gpu:0"} means {@code --gres=gpu:0}. Nothing is expanded; quotes only group.
 */
final class ShellWords {

  private ShellWords() {}

  static List<String> split(String source, String text) {
    List<String> words = new ArrayList<>();
    StringBuilder word = new StringBuilder();
    boolean inWord = false;
    char quote = 0;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (quote == '\'') {
        if (c == '\'') {
          quote = 0;
        } else {
          word.append(c);
        }
      } else if (quote == '"') {
        if (c == '"') {
          quote = 0;
        } else if (c == '\\' && i + 1 < text.length() && "\"\\$`".indexOf(text.charAt(i + 1)) >= 0) {
          word.append(text.charAt(++i));
        } else {
          word.append(c);
        }
      } else if (Character.isWhitespace(c)) {
        if (inWord) {
          words.add(word.toString());
          word.setLength(0);
          inWord = false;
        }
      } else {
        inWord = true;
        if (c == '\'' || c == '"') {
          quote = c;
        } else if (c == '\\' && i + 1 < text.length()) {
          word.append(text.charAt(++i));
        } else {
          word.append(c);
        }
      }
    }
    if (quote != 0) {
      throw new CrigateException.InvalidArgument("%s: the %s quote opened in '%s' is never closed"
          .formatted(source, quote == '"' ? "double" : "single", text));
    }
    if (inWord) {
      words.add(word.toString());
    }
    return List.copyOf(words);
  }
}

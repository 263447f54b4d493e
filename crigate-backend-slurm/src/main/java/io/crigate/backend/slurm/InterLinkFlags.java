package io.crigate.backend.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A pod's extra sbatch flags: interLink's {@code slurm-job.vk.io/flags}, or KNoC's
 * {@code slurm-job.knoc.io/flags}, which interLink's first versions read and its
 * {@code busyecho_k8s.yaml} still carries. Their examples name the job ({@code --job-name=TEST_KNOC});
 * crigate finds its jobs again after a restart by the name it gives them, so that flag is dropped
 * with one warning naming the name the job gets, and every other flag is checked as usual.
 *
 * @param annotation the annotation the words came from
 * @param words the flags as a shell splits them, without any job name
 */
record InterLinkFlags(String annotation, List<String> words) {

  static final String FLAGS = "slurm-job.vk.io/flags";
  static final String KNOC_FLAGS = "slurm-job.knoc.io/flags";

  private static final Logger LOG = LoggerFactory.getLogger(InterLinkFlags.class);

  static InterLinkFlags of(Map<String, String> annotations, String pod, String jobName) {
    String annotation = annotations.containsKey(FLAGS) || !annotations.containsKey(KNOC_FLAGS) ? FLAGS : KNOC_FLAGS;
    if (annotation.equals(FLAGS) && annotations.containsKey(KNOC_FLAGS)) {
      LOG.warn("pod {}: has both {} and {}; {} is used and {} ignored", pod, FLAGS, KNOC_FLAGS, FLAGS, KNOC_FLAGS);
    }
    List<String> words = new ArrayList<>(ShellWords.split("annotation " + annotation, annotations.getOrDefault(annotation, "")));
    List<String> names = new ArrayList<>();
    for (int i = 0; i < words.size(); i++) {
      String word = words.get(i);
      if (word.startsWith("--job-name=") || word.startsWith("-J") && word.length() > 2) {
        names.add(word.substring(word.startsWith("-J") ? 2 : "--job-name=".length()));
        words.remove(i--);
      } else if (word.equals("-J") && i + 1 < words.size()) {
        names.add(words.remove(i + 1));
        words.remove(i--);
      }
    }
    if (!names.isEmpty()) {
      LOG.warn("pod {}: annotation {} names the job {}: dropped, crigate names it {} to find it again after a restart",
          pod, annotation, String.join(", ", names), jobName);
    }
    return new InterLinkFlags(annotation, List.copyOf(words));
  }
}

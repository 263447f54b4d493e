package io.crigate.scheduler.sim;

import java.util.SplittableRandom;

/** kube-scheduler's choice among scored nodes: the highest total, each tied node equally likely. */
public final class HighestScore {

  private HighestScore() {}

  /** The index of the highest score, drawn at random among ties; -1 when there are none. */
  public static int index(long[] scores, SplittableRandom ties) {
    int best = -1;
    int tied = 0;
    for (int i = 0; i < scores.length; i++) {
      if (best < 0 || scores[i] > scores[best]) {
        best = i;
        tied = 1;
      } else if (scores[i] == scores[best] && ties.nextInt(++tied) == 0) {
        best = i; // reservoir sampling: each tied node wins with equal probability
      }
    }
    return best;
  }
}

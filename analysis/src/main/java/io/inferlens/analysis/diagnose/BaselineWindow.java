package io.inferlens.analysis.diagnose;

import java.util.ArrayDeque;

/**
 * Sliding baseline of one indicator: the lookback's blocks plus the current block, values joining
 * as soon as their step is classified normal; whole blocks leave when they fall out of the
 * lookback. The P95 is recomputed when the count has grown by 1 % since the last time (or a block
 * left), so a 44-day frame costs about a thousand histogram scans, not one per step.
 *
 * <p>Not thread safe: one per indicator of one {@link DiagnosisStream}.
 */
final class BaselineWindow {
  private final long lookbackMs;
  private final ArrayDeque<long[]> keys = new ArrayDeque<>();
  private final ArrayDeque<BaselineHistogram> blocks = new ArrayDeque<>();
  private final BaselineHistogram window = new BaselineHistogram();
  private BaselineHistogram current;
  private long currentBlock = Long.MIN_VALUE;
  private double cachedP95 = Double.NaN;
  private long countAtP95 = -1;

  /** @param lookbackMs how long values stay in the baseline, milliseconds (14 days by default) */
  BaselineWindow(long lookbackMs) {
    this.lookbackMs = lookbackMs;
  }

  /** Starts block {@code block} (of {@code blockMs}), dropping blocks older than the lookback. */
  void advance(long block, long blockMs) {
    if (current != null) {
      blocks.addLast(current);
      keys.addLast(new long[] {currentBlock});
    }
    current = new BaselineHistogram();
    currentBlock = block;
    long oldest = block - Math.max(1, lookbackMs / blockMs);
    while (!keys.isEmpty() && keys.peekFirst()[0] < oldest) {
      keys.removeFirst();
      window.removeAll(blocks.removeFirst());
      countAtP95 = -1;
    }
  }

  /** @param v a smoothed value (NaN ignored) standing for {@code weight} steps */
  void add(double v, long weight) {
    if (current != null) {
      current.add(v, weight);
      window.add(v, weight);
    }
  }

  /**
   * @param stepMs the analysis step, milliseconds: each count stands for one step
   * @param minHistoryMs normal history needed before a baseline exists, milliseconds
   * @return the P95 of the window, NaN with less than {@code minHistoryMs} of normal history
   */
  double baseline(long stepMs, long minHistoryMs) {
    long n = window.count();
    if (n * stepMs < minHistoryMs) {
      return Double.NaN;
    }
    if (countAtP95 < 0 || n - countAtP95 >= Math.max(1, countAtP95 / 100) || n < countAtP95) {
      cachedP95 = window.quantile(0.95);
      countAtP95 = n;
    }
    return cachedP95;
  }
}

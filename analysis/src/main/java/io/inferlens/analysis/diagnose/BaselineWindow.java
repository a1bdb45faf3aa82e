package io.inferlens.analysis.diagnose;

import java.util.ArrayDeque;
import java.util.Arrays;

/**
 * Sliding baseline of one indicator: the lookback's blocks plus the current block, values joining
 * as soon as their step is classified normal; whole blocks leave when they fall out of the
 * lookback. The P95 is recomputed when the count has grown by 1 % since the last time (or a block
 * left), so a 44-day frame costs about a thousand histogram scans, not one per step.
 *
 * <p>Only the window is a full {@link BaselineHistogram} (about 12 KB); a block keeps the buckets
 * its values fell in, and an empty block is not kept at all. A 14-day lookback of 15-minute blocks
 * is 1,344 blocks per indicator, so dense blocks cost 16 MB per indicator of every stream
 * whatever its data (103,692 of them filled a 2 GiB test heap).
 *
 * <p>Not thread safe: one per indicator of one {@link DiagnosisStream}.
 */
final class BaselineWindow {
  private final long lookbackMs;
  private final ArrayDeque<Block> blocks = new ArrayDeque<>();
  private final BaselineHistogram window = new BaselineHistogram();
  private Block current;
  private double cachedP95 = Double.NaN;
  private long countAtP95 = -1;

  /** @param lookbackMs how long values stay in the baseline, milliseconds (14 days by default) */
  BaselineWindow(long lookbackMs) {
    this.lookbackMs = lookbackMs;
  }

  /** Starts block {@code block} (of {@code blockMs}), dropping blocks older than the lookback. */
  void advance(long block, long blockMs) {
    if (current != null && current.size > 0) {
      current.trim();
      blocks.addLast(current);
    }
    current = new Block(block);
    long oldest = block - Math.max(1, lookbackMs / blockMs);
    while (!blocks.isEmpty() && blocks.peekFirst().key < oldest) {
      Block b = blocks.removeFirst();
      for (int i = 0; i < b.size; i++) {
        window.addToBucket(b.buckets[i], -b.weights[i]);
      }
      countAtP95 = -1;
    }
  }

  /** @param v a smoothed value (NaN and negatives ignored) standing for {@code weight} steps ≥ 1 */
  void add(double v, long weight) {
    if (current != null && v >= 0 && weight >= 1) {
      int i = BaselineHistogram.index(v);
      current.add(i, weight);
      window.addToBucket(i, weight);
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

  /** @return blocks kept (non-empty, inside the lookback), for tests */
  int blocksKept() {
    return blocks.size() + (current != null && current.size > 0 ? 1 : 0);
  }

  /** The (bucket, weight) pairs of one block, in arrival order; a repeated bucket is merged. */
  private static final class Block {
    final long key;
    int[] buckets = new int[4];
    long[] weights = new long[4];
    int size;

    Block(long key) {
      this.key = key;
    }

    void add(int bucket, long weight) {
      // Smoothed values move slowly: the last bucket is the likely match.
      if (size > 0 && buckets[size - 1] == bucket) {
        weights[size - 1] += weight;
        return;
      }
      if (size == buckets.length) {
        buckets = Arrays.copyOf(buckets, size * 2);
        weights = Arrays.copyOf(weights, size * 2);
      }
      buckets[size] = bucket;
      weights[size] = weight;
      size++;
    }

    void trim() {
      if (buckets.length > size) {
        buckets = Arrays.copyOf(buckets, size);
        weights = Arrays.copyOf(weights, size);
      }
    }
  }
}

package io.inferlens.storage;

/**
 * A rollup (downsampling) resolution of the store. Each keeps, per series and interval, the
 * count, min, max, sum, first and last value and the counter-aware increase of the raw samples
 * whose timestamps fall in {@code [start, start + intervalMs)}; see {@link RollupSeries}.
 */
public enum Resolution {
  /** 5-minute intervals, kept {@link StoreOptions#rollup5mRetentionMs()} (default 90 days). */
  FIVE_MINUTES(300_000L, PartitionKind.ROLLUP_5M),
  /** 1-hour intervals, kept {@link StoreOptions#rollup1hRetentionMs()} (default 2 years). */
  ONE_HOUR(3_600_000L, PartitionKind.ROLLUP_1H);

  private final long intervalMs;
  final PartitionKind partitions;

  Resolution(long intervalMs, PartitionKind partitions) {
    this.intervalMs = intervalMs;
    this.partitions = partitions;
  }

  /** @return the interval length in milliseconds */
  public long intervalMs() {
    return intervalMs;
  }

  /**
   * Picks the coarsest resolution whose interval is not longer than {@code stepMs}, the rule a
   * query uses so that each output step still sees at least one interval.
   *
   * @param stepMs the query step in milliseconds
   * @return the coarsest fitting resolution, or null if the step is shorter than 5 minutes (raw
   *     samples are needed then)
   */
  public static Resolution coarsestFitting(long stepMs) {
    Resolution best = null;
    for (Resolution r : values()) {
      if (r.intervalMs <= stepMs) {
        best = r;
      }
    }
    return best;
  }
}

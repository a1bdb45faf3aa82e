package io.inferlens.storage;

/**
 * The columns of a rollup interval ({@link RollupSeries}), in their stored order. A reader that
 * names only the columns it needs skips decoding the others ({@link
 * TimeSeriesStore#selectRollups(java.util.List, long, long, Resolution, java.util.Set)}).
 */
public enum RollupColumn {
  /** Samples in the interval. */
  COUNT,
  /** Smallest value. */
  MIN,
  /** Largest value. */
  MAX,
  /** Sum of the values. */
  SUM,
  /** Value of the oldest sample. */
  FIRST,
  /** Value of the newest sample. */
  LAST,
  /** Counter-aware increase between the interval's own samples. */
  INCREASE
}

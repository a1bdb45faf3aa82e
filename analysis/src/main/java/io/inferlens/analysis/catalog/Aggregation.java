package io.inferlens.analysis.catalog;

/**
 * How the series a source selects for one target (several engines, GPUs or partitions) are
 * combined into one value per instant. Histograms always sum their buckets; ratios sum numerator
 * and denominators separately.
 */
public enum Aggregation {
  /** Sum of the series (queue lengths, lags, counters). */
  SUM,
  /** Arithmetic mean of the series (utilisation and usage ratios). */
  AVG,
  /** Largest series (the worst GPU). */
  MAX
}

package io.inferlens.analysis.catalog;

/** How the series of a {@link MetricSource} are read. */
public enum SourceKind {
  /**
   * A Prometheus classic histogram: {@link MetricSource#name()} is the base name and the engine
   * reads {@code <name>_bucket} (with {@code le}), {@code <name>_sum} and {@code <name>_count}.
   * Gives quantiles and means.
   */
  HISTOGRAM,
  /** A gauge read as is (times {@link MetricSource#scale()}), aggregated across series. */
  GAUGE,
  /**
   * A monotonic counter read as a rate per second; with {@link MetricSource#denominators()} the
   * value is {@code rate(name) / rate(sum of denominators)} (e.g. µs per request).
   */
  COUNTER,
  /**
   * A ratio of gauges: {@code sum(name) / sum(denominators...)} at each instant, e.g. DCGM
   * {@code FB_USED / (FB_USED + FB_FREE)}. {@link MetricSource#denominators()} is not empty.
   */
  GAUGE_RATIO
}

package io.inferlens.storage;

/**
 * Limits on active series, enforced by the append path as Mimir's ingester enforces
 * {@code max_global_series_per_user} and {@code max_global_series_per_metric} (Grafana Mimir
 * configuration parameters, "limits" block): only a series that would become active is refused;
 * samples of a series that is active are always accepted, whatever the counts.
 *
 * <p><b>Active</b>: a series in the index that was appended a sample (by the server's clock, not
 * the sample's timestamp) within the last {@link #ACTIVE_WINDOW_MS} (one hour; Prometheus's head
 * holds about two to three hours, Mimir's active-series tracker 10 minutes to 1 hour). A series
 * idle longer becomes inactive within a minute after the hour (a background sweep), and sending
 * it again is, for the limits, a new series: refused when a limit is reached, as a series Mimir's
 * head has garbage-collected. After a restart the series with samples in the replayed head are
 * active, the others inactive until their next sample. Duplicates of stored samples never make a
 * series active. Counting costs one counter per metric name, changed only when a series becomes
 * active or inactive; a sample of an active series costs one field read.
 *
 * @param maxSeries most active series in the store, ≥ 0; 0 means no limit
 * @param maxSeriesPerMetric most active series per metric name ({@code __name__}), ≥ 0; 0 means
 *     no limit
 */
public record SeriesLimits(long maxSeries, long maxSeriesPerMetric) {

  /** How long a series stays active after its last appended sample: 1 hour, milliseconds. */
  public static final long ACTIVE_WINDOW_MS = 3_600_000L;

  /**
   * Default {@code --limits.max-series}: 1,000,000. The measurement was about 1 KB of
   * resident memory per series (300,000 new series: RSS 161 → 453 MB), so a million active series
   * cost about 1 GB, well inside the 6 GiB default JVM heap of a 24 GiB machine (a quarter of its
   * memory), while a large inference fleet (200 vLLM replicas of about 1,500 series each, plus
   * DCGM) stays near 300,000.
   */
  public static final long DEFAULT_MAX_SERIES = 1_000_000L;

  /**
   * Default {@code --limits.max-series-per-metric}: 100,000. The largest metric of a normal
   * fleet is a latency histogram's {@code _bucket}: about 30 buckets per instance and model, so
   * 100,000 is more than 3,000 instances, while one label carrying a user or request id crosses
   * it within minutes.
   */
  public static final long DEFAULT_MAX_SERIES_PER_METRIC = 100_000L;

  /** The defaults: {@value #DEFAULT_MAX_SERIES} and {@value #DEFAULT_MAX_SERIES_PER_METRIC}. */
  public static final SeriesLimits DEFAULTS =
      new SeriesLimits(DEFAULT_MAX_SERIES, DEFAULT_MAX_SERIES_PER_METRIC);

  /** No limit at all (0 and 0). */
  public static final SeriesLimits NONE = new SeriesLimits(0, 0);

  /** @throws IllegalArgumentException if a limit is negative, naming its flag */
  public SeriesLimits {
    if (maxSeries < 0) {
      throw new IllegalArgumentException(
          Kind.MAX_SERIES.flag() + " must be >= 0 (0: no limit), got " + maxSeries);
    }
    if (maxSeriesPerMetric < 0) {
      throw new IllegalArgumentException(Kind.MAX_SERIES_PER_METRIC.flag()
          + " must be >= 0 (0: no limit), got " + maxSeriesPerMetric);
    }
  }

  /** @return the value of one limit, 0 when off */
  public long value(Kind kind) {
    return kind == Kind.MAX_SERIES ? maxSeries : maxSeriesPerMetric;
  }

  /** Which limit refused a series; each names the server flag that sets it. */
  public enum Kind {
    /** {@link SeriesLimits#maxSeries()}: active series in the store. */
    MAX_SERIES("--limits.max-series"),
    /** {@link SeriesLimits#maxSeriesPerMetric()}: active series of one metric name. */
    MAX_SERIES_PER_METRIC("--limits.max-series-per-metric");

    private final String flag;

    Kind(String flag) {
      this.flag = flag;
    }

    /** @return the {@code inferlens serve} flag that sets this limit */
    public String flag() {
      return flag;
    }
  }
}

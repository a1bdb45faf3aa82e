package io.inferlens.ingest;

/**
 * Why samples of a request were not stored: the closed set of keys of
 * {@link DecodedWrite#rejectedByReason()} and {@link WriteOutcome#rejectedByReason()} (also
 * usable as a metric label). Every reason makes the request answer 400 (do not retry).
 */
public enum RejectReason {
  /** A label name appears twice in one series, e.g. {@code zone="a", zone="b"}. */
  DUPLICATE_LABEL_NAME("duplicate_label_name"),
  /** A label name or value is not valid UTF-8 (protobuf {@code string} fields must be). */
  INVALID_UTF8("invalid_utf8"),
  /** A label with an empty name. */
  EMPTY_LABEL_NAME("empty_label_name"),
  /** No {@code __name__} label with a non-empty value. */
  MISSING_METRIC_NAME("missing_metric_name"),
  /** A sample older than now minus {@link IngestLimits#retentionMs()}. */
  TOO_OLD("too_old"),
  /** A sample newer than now plus {@link IngestLimits#maxFutureMs()}. */
  TOO_FAR_IN_FUTURE("too_far_in_future"),
  /** The series carries native histogram samples, which are not supported yet. */
  NATIVE_HISTOGRAM("native_histogram"),
  /**
   * The store refused the series: it would have become active over
   * {@code --limits.max-series} ({@link io.inferlens.storage.SeriesLimits#maxSeries()}).
   */
  SERIES_LIMIT("series_limit"),
  /**
   * The store refused the series: its metric name would have had more active series than
   * {@code --limits.max-series-per-metric}
   * ({@link io.inferlens.storage.SeriesLimits#maxSeriesPerMetric()}).
   */
  SERIES_PER_METRIC_LIMIT("series_per_metric_limit"),
  /** The store refused the sample: another value is already stored at its timestamp. */
  CONFLICT("conflict");

  private final String key;

  RejectReason(String key) {
    this.key = key;
  }

  /**
   * @param limit a series limit of the store
   * @return the reason its refusals are counted under
   */
  public static RejectReason of(io.inferlens.storage.SeriesLimits.Kind limit) {
    return limit == io.inferlens.storage.SeriesLimits.Kind.MAX_SERIES
        ? SERIES_LIMIT : SERIES_PER_METRIC_LIMIT;
  }

  /** @return the snake_case key used in maps, logs and metrics */
  public String key() {
    return key;
  }
}

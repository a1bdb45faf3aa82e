package io.inferlens.ingest;

/**
 * Why samples of a request were not stored: the closed set of keys of
 * {@link DecodedWrite#rejectedByReason()} and {@link WriteOutcome#rejectedByReason()} (also
 * usable as a metric label, {@code inferlens_samples_rejected_total{reason}}). Every reason but
 * {@link #RATE_LIMITED} refuses a series or sample alone and makes the request answer 400 (do not
 * retry); {@link #RATE_LIMITED} refuses a whole request with 429 (retry later). The keys
 * {@code max_label_names_per_series}, {@code label_name_too_long}, {@code label_value_too_long}
 * and {@code rate_limited} are Mimir's discarded-samples reasons
 * ({@code pkg/distributor/validate.go}).
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
  CONFLICT("conflict"),
  /** More labels than {@link LabelLimits#maxLabelNamesPerSeries()}. */
  MAX_LABEL_NAMES_PER_SERIES("max_label_names_per_series"),
  /** A label name longer than {@link LabelLimits#maxLabelNameLength()} bytes. */
  LABEL_NAME_TOO_LONG("label_name_too_long"),
  /** A label value longer than {@link LabelLimits#maxLabelValueLength()} bytes. */
  LABEL_VALUE_TOO_LONG("label_value_too_long"),
  /** A metric name longer than {@link LabelLimits#maxMetricNameLength()} bytes. */
  METRIC_NAME_TOO_LONG("metric_name_too_long"),
  /** A metric name outside {@code [a-zA-Z_:][a-zA-Z0-9_:]*} without UTF-8 names allowed. */
  INVALID_METRIC_NAME("invalid_metric_name"),
  /** A label name outside {@code [a-zA-Z_][a-zA-Z0-9_]*} without UTF-8 names allowed. */
  INVALID_LABEL_NAME("invalid_label_name"),
  /**
   * The request's HA cluster would be tracked beyond {@link HaConfig#maxClusters()}: the whole
   * request is refused with 400 (Mimir's {@code too_many_ha_clusters}).
   */
  TOO_MANY_HA_CLUSTERS("too_many_ha_clusters"),
  /** The request came beyond the ingestion rate limit ({@link IngestionRate}): 429, retryable. */
  RATE_LIMITED("rate_limited");

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

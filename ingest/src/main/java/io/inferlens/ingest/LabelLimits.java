package io.inferlens.ingest;

/**
 * Per-series label limits and the name rule of remote write, each set by a flag of
 * {@code inferlens serve}. A series over a limit, or with a name the rule refuses, is refused
 * whole (400 naming it, the flag and its value) while the other series of the request are stored.
 *
 * <p>Sources: Grafana Mimir's {@code max_label_names_per_series} (default 30),
 * {@code max_label_name_length} (1024) and {@code max_label_value_length} (2048), checked in its
 * {@code pkg/distributor/validate.go} ({@code validateLabels}): the number of labels counts
 * {@code __name__}, and lengths are in bytes of UTF-8 (Go's {@code len} of a string). Names:
 * Prometheus's data model ({@code model.IsValidMetricName}, {@code LabelName.IsValid} under
 * {@code LegacyValidation}): metric names {@code [a-zA-Z_:][a-zA-Z0-9_:]*}, label names
 * {@code [a-zA-Z_][a-zA-Z0-9_]*}; with UTF-8 validation (Prometheus 3) any non-empty valid UTF-8
 * string.
 *
 * <p>Differences from Mimir, on purpose: the metric name ({@code __name__}'s value) has a limit
 * of its own, {@link #maxMetricNameLength}, instead of falling under the label value length (its
 * default is the same 2048 bytes, so by default the two agree); labels are counted as sent, those
 * with an empty value too (the store drops those, but they cost decoding all the same).
 *
 * @param maxLabelNamesPerSeries most labels one series may have, {@code __name__} included, ≥ 1;
 *     default {@value #DEFAULT_MAX_LABEL_NAMES_PER_SERIES}
 * @param maxLabelNameLength longest label name in bytes of UTF-8, ≥ 1; default
 *     {@value #DEFAULT_MAX_LABEL_NAME_LENGTH}
 * @param maxLabelValueLength longest label value in bytes of UTF-8 (the metric name excepted),
 *     ≥ 1; default {@value #DEFAULT_MAX_LABEL_VALUE_LENGTH}
 * @param maxMetricNameLength longest metric name in bytes of UTF-8, ≥ 1; default
 *     {@value #DEFAULT_MAX_METRIC_NAME_LENGTH}
 * @param allowUtf8Names accept any non-empty valid UTF-8 metric and label name (Prometheus 3's
 *     UTF-8 names) instead of the legacy character sets; default false
 */
public record LabelLimits(int maxLabelNamesPerSeries, int maxLabelNameLength,
    int maxLabelValueLength, int maxMetricNameLength, boolean allowUtf8Names) {

  /** Mimir's default {@code max_label_names_per_series}. */
  public static final int DEFAULT_MAX_LABEL_NAMES_PER_SERIES = 30;
  /** Mimir's default {@code max_label_name_length}, bytes. */
  public static final int DEFAULT_MAX_LABEL_NAME_LENGTH = 1024;
  /** Mimir's default {@code max_label_value_length}, bytes. */
  public static final int DEFAULT_MAX_LABEL_VALUE_LENGTH = 2048;
  /** The label value length: Mimir checks the metric name as the value of {@code __name__}. */
  public static final int DEFAULT_MAX_METRIC_NAME_LENGTH = DEFAULT_MAX_LABEL_VALUE_LENGTH;

  /** The flag of {@link #maxLabelNamesPerSeries}, as messages name it. */
  public static final String FLAG_MAX_LABEL_NAMES_PER_SERIES =
      "--limits.max-label-names-per-series";
  /** The flag of {@link #maxLabelNameLength}. */
  public static final String FLAG_MAX_LABEL_NAME_LENGTH = "--limits.max-label-name-length";
  /** The flag of {@link #maxLabelValueLength}. */
  public static final String FLAG_MAX_LABEL_VALUE_LENGTH = "--limits.max-label-value-length";
  /** The flag of {@link #maxMetricNameLength}. */
  public static final String FLAG_MAX_METRIC_NAME_LENGTH = "--limits.max-metric-name-length";
  /** The flag of {@link #allowUtf8Names}. */
  public static final String FLAG_ALLOW_UTF8_NAMES = "--allow-utf8-names";

  /** @throws IllegalArgumentException naming the flag of a limit below 1 */
  public LabelLimits {
    atLeastOne(FLAG_MAX_LABEL_NAMES_PER_SERIES, maxLabelNamesPerSeries);
    atLeastOne(FLAG_MAX_LABEL_NAME_LENGTH, maxLabelNameLength);
    atLeastOne(FLAG_MAX_LABEL_VALUE_LENGTH, maxLabelValueLength);
    atLeastOne(FLAG_MAX_METRIC_NAME_LENGTH, maxMetricNameLength);
  }

  private static void atLeastOne(String flag, int value) {
    if (value < 1) {
      throw new IllegalArgumentException(flag + " must be at least 1, got " + value);
    }
  }

  /** @return 30 labels, 1024-byte names, 2048-byte values and metric names, legacy names */
  public static LabelLimits defaults() {
    return new LabelLimits(DEFAULT_MAX_LABEL_NAMES_PER_SERIES, DEFAULT_MAX_LABEL_NAME_LENGTH,
        DEFAULT_MAX_LABEL_VALUE_LENGTH, DEFAULT_MAX_METRIC_NAME_LENGTH, false);
  }

  /**
   * @param allow whether UTF-8 names are accepted
   * @return these limits with that name rule
   */
  public LabelLimits withUtf8Names(boolean allow) {
    return new LabelLimits(maxLabelNamesPerSeries, maxLabelNameLength, maxLabelValueLength,
        maxMetricNameLength, allow);
  }

  /**
   * Prometheus's legacy metric name rule, {@code [a-zA-Z_:][a-zA-Z0-9_:]*}.
   *
   * @param name a metric name, not null
   * @return whether it matches
   */
  public static boolean isLegacyMetricName(String name) {
    int n = name.length();
    if (n == 0) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'
          || (i > 0 && c >= '0' && c <= '9');
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  /**
   * Prometheus's legacy label name rule, {@code [a-zA-Z_][a-zA-Z0-9_]*} ({@code __name__} and
   * other {@code __}-prefixed names match it).
   *
   * @param name a label name, not null
   * @return whether it matches
   */
  public static boolean isLegacyLabelName(String name) {
    int n = name.length();
    if (n == 0) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      char c = name.charAt(i);
      boolean ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
          || (i > 0 && c >= '0' && c <= '9');
      if (!ok) {
        return false;
      }
    }
    return true;
  }
}

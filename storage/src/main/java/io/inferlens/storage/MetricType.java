package io.inferlens.storage;

/**
 * The type of a metric family, as Prometheus names it in its HTTP API's {@code /api/v1/metadata}
 * and its text exposition's {@code # TYPE} line.
 *
 * <p>Source: Prometheus model/textparse/interface.go at v2.42.0 ({@code MetricType} constants,
 * lowercase names) and prompb/types.proto ({@code MetricMetadata.MetricType}, the same eight).
 * {@link #code()} is InferLens's on-disk byte (storage/FORMAT.md, "Metric metadata"); it happens
 * to equal the remote-write enum number, but the two are separate contracts.
 */
public enum MetricType {
  /** Type not given, or not one of the others. */
  UNKNOWN("unknown", 0),
  /** A monotonic counter. */
  COUNTER("counter", 1),
  /** A value that goes up and down. */
  GAUGE("gauge", 2),
  /** A classic histogram ({@code _bucket}, {@code _sum}, {@code _count}). */
  HISTOGRAM("histogram", 3),
  /** An OpenMetrics gauge histogram. */
  GAUGEHISTOGRAM("gaugehistogram", 4),
  /** A summary (quantiles, {@code _sum}, {@code _count}). */
  SUMMARY("summary", 5),
  /** An OpenMetrics info metric. */
  INFO("info", 6),
  /** An OpenMetrics state set. */
  STATESET("stateset", 7);

  private static final MetricType[] BY_CODE = values();

  private final String promName;
  private final int code;

  MetricType(String promName, int code) {
    this.promName = promName;
    this.code = code;
  }

  /** @return the lowercase name Prometheus's API answers, e.g. {@code counter} */
  public String promName() {
    return promName;
  }

  /** @return the on-disk code, 0..7 */
  public int code() {
    return code;
  }

  /**
   * @param code an on-disk code
   * @return its type
   * @throws IllegalArgumentException if {@code code} is not 0..7
   */
  public static MetricType ofCode(int code) {
    if (code < 0 || code >= BY_CODE.length) {
      throw new IllegalArgumentException("metric type code " + code + " is not 0.."
          + (BY_CODE.length - 1));
    }
    return BY_CODE[code];
  }
}

package io.inferlens.storage;

import java.util.Objects;

/**
 * What a sender says about one metric family: its type, help text and unit, as remote write 1.0
 * carries it ({@code prometheus.MetricMetadata}, prompb/types.proto at Prometheus v2.42.0) and
 * Prometheus's {@code /api/v1/metadata} answers it. Two entries are the same entry when all four
 * fields are equal.
 *
 * <p>Bounds, checked here so that no path can store more: the family name is 1 to
 * {@value #MAX_NAME_BYTES} bytes, the help at most {@value #MAX_HELP_BYTES} bytes (64 KiB), the
 * unit at most {@value #MAX_UNIT_BYTES} bytes, all counted in UTF-8. The store keeps at most
 * {@value #MAX_ENTRIES_PER_FAMILY} distinct entries per family (storage/FORMAT.md, "Metric
 * metadata"). Prometheus itself has no such limits; they bound what one sender can make the
 * store hold.
 *
 * @param metricFamilyName the family, e.g. {@code http_requests_total} (a histogram's family has
 *     no {@code _bucket} suffix); non-empty
 * @param type the family's type; non-null
 * @param help the help text, possibly empty; non-null
 * @param unit the unit, e.g. {@code seconds}, possibly empty; non-null
 */
public record MetricMetadata(String metricFamilyName, MetricType type, String help, String unit) {

  /** Longest family name in UTF-8 bytes: 4 KiB, as long as a label value may usefully be. */
  public static final int MAX_NAME_BYTES = 4096;
  /** Longest help text in UTF-8 bytes: 64 KiB. */
  public static final int MAX_HELP_BYTES = 65536;
  /** Longest unit in UTF-8 bytes: 4 KiB. */
  public static final int MAX_UNIT_BYTES = 4096;
  /** Most distinct entries the store keeps per family: 10 (the least recently sent dropped). */
  public static final int MAX_ENTRIES_PER_FAMILY = 10;

  /**
   * Checks the bounds.
   *
   * @throws NullPointerException if a field is null
   * @throws IllegalArgumentException if the name is empty, a field is over its bound (the message
   *     names the field, its length and the limit) or holds an unpaired surrogate (no UTF-8 form)
   */
  public MetricMetadata {
    Objects.requireNonNull(metricFamilyName, "metricFamilyName");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(help, "help");
    Objects.requireNonNull(unit, "unit");
    if (metricFamilyName.isEmpty()) {
      throw new IllegalArgumentException("metric_family_name is empty");
    }
    checkLength("metric_family_name", metricFamilyName, MAX_NAME_BYTES);
    checkLength("help", help, MAX_HELP_BYTES);
    checkLength("unit", unit, MAX_UNIT_BYTES);
  }

  private static void checkLength(String field, String s, int max) {
    int bytes = utf8Length(field, s);
    if (bytes > max) {
      throw new IllegalArgumentException(field + " is " + bytes + " bytes, over the limit of "
          + max + " bytes");
    }
  }

  /**
   * @param field the field's name, for the error
   * @param s any string
   * @return its length in UTF-8 bytes
   * @throws IllegalArgumentException if {@code s} has an unpaired surrogate
   */
  static int utf8Length(String field, String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x80) {
        n++;
      } else if (c < 0x800) {
        n += 2;
      } else if (Character.isHighSurrogate(c) && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        n += 4;
        i++;
      } else if (Character.isSurrogate(c)) {
        throw new IllegalArgumentException(field + " has an unpaired surrogate at index " + i
            + ", which has no UTF-8 form");
      } else {
        n += 3;
      }
    }
    return n;
  }
}

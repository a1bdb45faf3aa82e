package io.inferlens.storage;

import java.util.Objects;

/**
 * The samples of one series to append: a canonical label set and parallel arrays of timestamps
 * (milliseconds since the Unix epoch) and raw IEEE-754 value bits (as from
 * {@link Double#doubleToRawLongBits}, so NaN payloads such as the stale marker
 * {@code 0x7ff0000000000002} survive). Samples may be in any order and may repeat.
 *
 * <p>Ownership: the store reads the arrays during {@code append} only; the caller may reuse them
 * afterwards.
 *
 * @param labels the series' canonical label set, with a {@code __name__}
 * @param timestampsMs sample timestamps in milliseconds, at least {@code count} long
 * @param valueBits raw value bits, at least {@code count} long
 * @param count number of samples, 0 or more
 */
public record SeriesWrite(LabelSet labels, long[] timestampsMs, long[] valueBits, int count) {

  /**
   * @throws IllegalArgumentException if the arrays are shorter than {@code count}
   */
  public SeriesWrite {
    Objects.requireNonNull(labels, "labels");
    if (count < 0 || timestampsMs.length < count || valueBits.length < count) {
      throw new IllegalArgumentException(
          "count " + count + " exceeds arrays of " + timestampsMs.length + "/" + valueBits.length);
    }
  }
}

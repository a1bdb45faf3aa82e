package io.inferlens.storage;

/**
 * One known series in memory: its id, labels and the largest timestamp stored for it.
 *
 * <p>Thread safety: {@code id} and {@code labels} are immutable. {@link #maxTimestampMs} is read
 * and written only while holding the store's append lock.
 */
final class SeriesRef {

  /** Marks a series with no stored sample. */
  static final long NO_SAMPLES = Long.MIN_VALUE;

  final long id;
  final LabelSet labels;

  /**
   * An upper bound of the stored timestamps in milliseconds ({@link #NO_SAMPLES} if none): a
   * sample with a larger timestamp cannot collide with a stored one. Retention does not lower it,
   * which keeps it an upper bound.
   */
  long maxTimestampMs;

  SeriesRef(long id, LabelSet labels, long maxTimestampMs) {
    this.id = id;
    this.labels = labels;
    this.maxTimestampMs = maxTimestampMs;
  }

  @Override
  public String toString() {
    return "series " + id + " " + labels;
  }
}

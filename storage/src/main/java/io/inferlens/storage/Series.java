package io.inferlens.storage;

/**
 * One series read back from the store: its labels and its samples in ascending timestamp order,
 * each timestamp once.
 *
 * @param labels the canonical label set
 * @param timestampsMs sample timestamps in milliseconds, strictly ascending; the caller owns it
 * @param valueBits raw IEEE-754 bits of the values, same length as {@code timestampsMs}
 */
public record Series(LabelSet labels, long[] timestampsMs, long[] valueBits) {

  /** @return the number of samples */
  public int size() {
    return timestampsMs.length;
  }

  /**
   * @param i sample index
   * @return the value as a double (NaN payloads are preserved by {@link #valueBits()} only)
   */
  public double value(int i) {
    return Double.longBitsToDouble(valueBits[i]);
  }
}

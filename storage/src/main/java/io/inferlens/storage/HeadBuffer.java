package io.inferlens.storage;

import java.util.Arrays;

/**
 * The head samples of one series that are not yet in chunks: timestamps (milliseconds) strictly
 * ascending with their raw IEEE-754 value bits. In-order samples append in O(1); an out-of-order
 * sample (backfill) is inserted by binary search and an array shift, which is fine because it is
 * rare and the head holds at most a few hundred samples per series between flushes.
 *
 * <p>Thread safety: none; {@link SeriesRef} guards its buffers with its own monitor.
 */
final class HeadBuffer {

  /** First capacity: 8 samples, 128 bytes, since most series get only tens per flush. */
  private static final int INITIAL_CAPACITY = 8;

  private long[] ts = new long[INITIAL_CAPACITY];
  private long[] bits = new long[INITIAL_CAPACITY];
  private int size;

  /** @return the number of samples */
  int size() {
    return size;
  }

  /** @return the timestamp of sample {@code i}, milliseconds */
  long timestampMs(int i) {
    return ts[i];
  }

  /** @return the raw bits of sample {@code i} */
  long valueBits(int i) {
    return bits[i];
  }

  /** @return the newest timestamp, or {@link SeriesRef#NO_SAMPLES} when empty */
  long maxTimestampMs() {
    return size == 0 ? SeriesRef.NO_SAMPLES : ts[size - 1];
  }

  /** @return the oldest timestamp, or {@code Long.MAX_VALUE} when empty */
  long minTimestampMs() {
    return size == 0 ? Long.MAX_VALUE : ts[0];
  }

  /** @return the index of {@code timestampMs}, or {@code -(insertion point) - 1} */
  int find(long timestampMs) {
    if (size > 0 && timestampMs > ts[size - 1]) {
      return -size - 1;
    }
    return Arrays.binarySearch(ts, 0, size, timestampMs);
  }

  /**
   * Adds a sample whose timestamp is not yet present.
   *
   * @throws IllegalStateException if the timestamp is present (a bug: callers check first)
   */
  void add(long timestampMs, long valueBits) {
    if (size == ts.length) {
      int cap = size + (size >> 1) + 1;
      ts = Arrays.copyOf(ts, cap);
      bits = Arrays.copyOf(bits, cap);
    }
    if (size == 0 || timestampMs > ts[size - 1]) {
      ts[size] = timestampMs;
      bits[size] = valueBits;
      size++;
      return;
    }
    int at = Arrays.binarySearch(ts, 0, size, timestampMs);
    if (at >= 0) {
      throw new IllegalStateException("bug: timestamp " + timestampMs + " already in the head");
    }
    at = -at - 1;
    System.arraycopy(ts, at, ts, at + 1, size - at);
    System.arraycopy(bits, at, bits, at + 1, size - at);
    ts[at] = timestampMs;
    bits[at] = valueBits;
    size++;
  }

  /**
   * Copies the samples in {@code [startMs, endMs]} into {@code out}.
   *
   * @return how many were copied
   */
  int copyRange(long startMs, long endMs, SampleRun out) {
    int from = Arrays.binarySearch(ts, 0, size, startMs);
    from = from >= 0 ? from : -from - 1;
    int n = 0;
    for (int i = from; i < size && ts[i] <= endMs; i++) {
      out.add(ts[i], bits[i]);
      n++;
    }
    return n;
  }

  /** @return the backing timestamp array; valid in {@code [0, size())} */
  long[] timestampsArray() {
    return ts;
  }

  /** @return the backing value array; valid in {@code [0, size())} */
  long[] valueBitsArray() {
    return bits;
  }
}

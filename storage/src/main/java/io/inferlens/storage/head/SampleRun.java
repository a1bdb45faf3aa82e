package io.inferlens.storage.head;

import java.util.Arrays;

/**
 * A growable run of samples (timestamps in milliseconds, raw value bits) gathered from chunks and
 * the head, put in order by {@link #sortAndDedupe()}. Pieces usually arrive already in order
 * (chunks of one series ascend in time), which the sort detects and skips.
 *
 * <p>Thread safety: none; one per reading thread.
 */
public final class SampleRun {

  private long[] ts;
  private long[] bits;
  private int size;

  /** @param capacity initial capacity in samples, &ge; 1 */
  public SampleRun(int capacity) {
    ts = new long[Math.max(1, capacity)];
    bits = new long[ts.length];
  }

  public int size() {
    return size;
  }

  public void clear() {
    size = 0;
  }

  public long timestampMs(int i) {
    return ts[i];
  }

  public long valueBits(int i) {
    return bits[i];
  }

  public void add(long timestampMs, long valueBits) {
    if (size == ts.length) {
      grow(size + 1);
    }
    ts[size] = timestampMs;
    bits[size] = valueBits;
    size++;
  }

  /** Appends the samples of {@code [0, n)} of the arrays that fall in {@code [startMs, endMs]}. */
  public void addRange(long[] t, long[] b, int n, long startMs, long endMs) {
    if (size + n > ts.length) {
      grow(size + n);
    }
    for (int i = 0; i < n; i++) {
      long x = t[i];
      if (x >= startMs && x <= endMs) {
        ts[size] = x;
        bits[size] = b[i];
        size++;
      }
    }
  }

  private void grow(int min) {
    int cap = Math.max(min, ts.length * 2);
    ts = Arrays.copyOf(ts, cap);
    bits = Arrays.copyOf(bits, cap);
  }

  /**
   * Sorts by timestamp and keeps the first of equal timestamps. Equal timestamps occur only when a
   * reader saw the same sample both in the head and in a chunk written by a concurrent head flush;
   * their bits are equal because the store never accepts a conflicting sample.
   */
  public void sortAndDedupe() {
    boolean sorted = true;
    for (int i = 1; i < size; i++) {
      if (ts[i] <= ts[i - 1]) {
        sorted = false;
        break;
      }
    }
    if (sorted) {
      return;
    }
    Integer[] order = new Integer[size];
    for (int i = 0; i < size; i++) {
      order[i] = i;
    }
    // Stable sort by timestamp: the first of equal timestamps wins.
    Arrays.sort(order, (a, b) -> Long.compare(ts[a], ts[b]));
    long[] t2 = new long[size];
    long[] b2 = new long[size];
    int n = 0;
    for (int i = 0; i < size; i++) {
      int j = order[i];
      if (n > 0 && t2[n - 1] == ts[j]) {
        continue;
      }
      t2[n] = ts[j];
      b2[n] = bits[j];
      n++;
    }
    ts = t2;
    bits = b2;
    size = n;
  }

  /** @return a fresh copy of the timestamps */
  public long[] timestamps() {
    return Arrays.copyOf(ts, size);
  }

  /** @return a fresh copy of the value bits */
  public long[] values() {
    return Arrays.copyOf(bits, size);
  }

  /** @return the backing timestamp array, valid in {@code [0, size())} */
  public long[] timestampsArray() {
    return ts;
  }

  /** @return the backing value array, valid in {@code [0, size())} */
  public long[] valuesArray() {
    return bits;
  }
}

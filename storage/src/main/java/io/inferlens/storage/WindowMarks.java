package io.inferlens.storage;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The in-memory set of (series, 2-hour window) pairs whose chunks are not finalized yet (the
 * mirror of the on-disk marks, key prefix 03 in FORMAT.md): one bit per series id in a bitmap per
 * window start. Series ids are dense ({@link Keys#FIRST_SERIES_ID} upwards), so 100,000 series
 * with open windows cost about 12 KiB per window, where a concurrent map of boxed pairs cost about
 * 90 bytes per pair (9 MB on the s100k-240 bench).
 *
 * <p>Thread safety: thread safe; every method is synchronized.
 */
final class WindowMarks {

  private final TreeMap<Long, BitSet> byWindow = new TreeMap<>();

  /**
   * Marks a window of a series as not finalized.
   *
   * @param seriesId the series id, ≥ {@link Keys#FIRST_SERIES_ID}
   * @param windowStartMs the window's start, milliseconds
   * @throws IllegalArgumentException if the id is below the first id or beyond 2<sup>31</sup>
   *     series
   */
  synchronized void add(long seriesId, long windowStartMs) {
    byWindow.computeIfAbsent(windowStartMs, k -> new BitSet()).set(bit(seriesId));
  }

  /**
   * @param seriesId the series id
   * @param windowStartMs the window's start, milliseconds
   * @return whether the pair was marked (and is not any more)
   */
  synchronized boolean remove(long seriesId, long windowStartMs) {
    BitSet ids = byWindow.get(windowStartMs);
    if (ids == null) {
      return false;
    }
    int b = bit(seriesId);
    boolean was = ids.get(b);
    ids.clear(b);
    if (ids.isEmpty()) {
      byWindow.remove(windowStartMs);
    }
    return was;
  }

  /**
   * @param seriesId the series id
   * @param windowStartMs the window's start, milliseconds
   * @return whether the pair is marked
   */
  synchronized boolean contains(long seriesId, long windowStartMs) {
    BitSet ids = byWindow.get(windowStartMs);
    return ids != null && ids.get(bit(seriesId));
  }

  /**
   * @param maxWindowStartMs the latest window start to list, milliseconds (inclusive)
   * @return the marked pairs whose window starts at or before {@code maxWindowStartMs}, ordered
   *     by window start, then series id; a fresh list
   */
  synchronized List<TimeSeriesStore.WindowKey> upTo(long maxWindowStartMs) {
    List<TimeSeriesStore.WindowKey> out = new ArrayList<>();
    for (Map.Entry<Long, BitSet> e : byWindow.headMap(maxWindowStartMs, true).entrySet()) {
      BitSet ids = e.getValue();
      for (int b = ids.nextSetBit(0); b >= 0; b = ids.nextSetBit(b + 1)) {
        out.add(new TimeSeriesStore.WindowKey(b + Keys.FIRST_SERIES_ID, e.getKey()));
      }
    }
    return out;
  }

  /**
   * Forgets every mark of windows starting in {@code [startMs, endMs)}.
   *
   * @param startMs first window start to forget, milliseconds
   * @param endMs end of the range, exclusive, milliseconds
   */
  synchronized void removeWindows(long startMs, long endMs) {
    if (startMs < endMs) {
      byWindow.subMap(startMs, true, endMs, false).clear();
    }
  }

  private static int bit(long seriesId) {
    long b = seriesId - Keys.FIRST_SERIES_ID;
    if (b < 0 || b >= Integer.MAX_VALUE) {
      throw new IllegalArgumentException("series id " + seriesId + " is outside 1..2^31-1");
    }
    return (int) b;
  }
}
